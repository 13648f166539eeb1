// The builder page: live preview bookkeeping, Enter, the attribute steppers, saving by itself,
// focus after a row is added or removed, and what a screen reader hears. Without this script
// the page is a plain form whose buttons post to the server, which re-renders it.
const builder = document.getElementById("builder");
if (builder) {
  const saveState = builder.querySelector("[data-save-state]");
  const versionInput = builder.querySelector("input[name=version]");
  // The count of this sitting's saves, carried on by a page the server draws again: two saves
  // on their way at once (one sent on leaving, or Save) may land in either order, and the
  // server keeps the later one.
  const stampInput = builder.querySelector("input[name=edit_stamp]");
  function nextStamp() {
    stampInput.value = String(Number(stampInput.value) + 1);
    return stampInput.value;
  }
  const announcer = document.getElementById("announcer");
  const pageToken = JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"];
  const formToken = builder.querySelector("input[name=csrfmiddlewaretoken]");
  // Signing in again (in another tab) gives the session a new CSRF secret, in its cookie: the
  // token this page was drawn with would be refused from then on, in the header and in the
  // form's own field (which Django reads first), for previews, saves and Save alike.
  function csrfToken() {
    const cookie = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/)?.[1];
    const token = cookie ? decodeURIComponent(cookie) : pageToken;
    if (formToken) formToken.value = token;
    return token;
  }

  // -- Which inputs the next preview must send figures for --------------------------------------
  // The server re-renders only the attribute rows those edits move. A name leaves the list
  // only when a preview that carried its latest edit has come back: a request replaced by a
  // newer one (hx-sync) or lost on the network hands its names on to the next, and an input
  // edited again while its preview was on the way stays listed for the next one.
  const edited = new Map(); // input name -> the number of its latest edit
  let edits = 0;

  // -- Saving by itself --------------------------------------------------------------------------
  // Shortly after the player pauses, the form is stored as it stands; one save at a time, each
  // with the version the last one returned, so a tab that fell behind gets a conflict, never an
  // overwrite. After a conflict nothing more is sent: Save then shows the two versions.
  const AUTOSAVE_PAUSE_MS = 600;
  // Why the server keeps this character from saving by itself (submitted or approved), as it
  // last said: each pause asks again, as the referee may have returned or approved it since.
  let paused = builder.dataset.autosavePaused || "";
  let savedEdit = 0; // the number of the latest edit the server has stored
  let timer = null;
  let inFlight = null; // the edit number the save on its way carries
  let stopped = ""; // why saving by itself stopped (a conflict)
  let partial = false; // the last save left out a field it could not read
  let signedOut = false; // the session ended (signed out in another tab): saves wait for it
  // Rows asked for (a section's add or remove) that have not landed: each is an edit from the
  // press on, stored once its row is on the page. Waiting: in htmx's queue behind a preview
  // (triggering event -> the button pressed); on their way: sent.
  const rowsWaiting = new Map();
  const rowsOnTheWay = new Set();
  // Names entered in an add box while a row was on its way: each is added in turn, and each is
  // an edit from its Enter on.
  const namesWaiting = [];
  // The rows whose request the network lost (no answer came), to be asked for again.
  const rowsLost = []; // { button, value, section }
  const rowsPending = () =>
    rowsWaiting.size + rowsOnTheWay.size + namesWaiting.length + rowsLost.length > 0;
  // What each row asked for does (its button's action, with the name it adds): a page left
  // before the row landed sends these with its last save, which applies them.
  const rowsAsked = new Map(); // triggering event -> action
  const rowsToSend = () => [
    ...rowsAsked.values(),
    ...rowsLost.map((lost) => lost.value),
    ...namesWaiting.map(({ box, name }) => `${builder.querySelector(ADDS[box])?.value}:${name}`),
  ];
  const SIGNED_OUT =
    "Not saved: you are signed out. Sign in again in another tab: your edits stay on this page and are saved then.";
  // A page the server drew after a refused Save (or a button, without this script) holds
  // edits that are not stored; after a conflict, only Save may decide.
  const initialState = saveState.dataset.state;
  if (initialState === "conflict") stopped = saveState.textContent;
  if (initialState === "unsaved" || initialState === "unreadable") edits = 1;

  function showState(text, kind) {
    saveState.textContent = text;
    saveState.dataset.state = kind;
  }

  function noteEdit() {
    edits += 1;
    if (paused) showState(`Not saved: ${paused}`, "paused");
    if (stopped) return;
    if (!paused) showState("Saving…", "saving");
    saveSoon();
  }
  // A page that waits to leave (leaveOnceSaved) has no pause to wait for.
  function saveSoon() {
    clearTimeout(timer);
    timer = setTimeout(autosave, whenSettled.length ? 0 : AUTOSAVE_PAUSE_MS);
  }

  // Offline (offline.js marks the page and shuts its controls): nothing is sent, and the
  // edits stay on the page, unsaved, until "ffa:online" says the connection is back.
  const offline = () => document.documentElement.hasAttribute("data-offline");
  const OFFLINE = "Not saved: offline. Your edits stay on this page and are saved when the connection returns.";

  // Leaving, the save goes even beside one on its way. ``keepalive``: the request outlives
  // the page; only these saves ask for it, as browsers cap the size of such requests.
  function autosave({ leaving = false, keepalive = leaving } = {}) {
    clearTimeout(timer);
    if (stopped || (edits === savedEdit && !(leaving && rowsPending()))) return;
    if (offline()) {
      showState(OFFLINE, "offline");
      return;
    }
    if (inFlight !== null && !leaving) return; // its answer schedules the next save
    if (going() && !leaving) return;
    const carried = edits;
    const token = csrfToken();
    nextStamp();
    const body = new FormData(builder);
    body.delete("action");
    if (leaving) for (const row of rowsToSend()) body.append("rows", row);
    inFlight = carried;
    fetch(builder.dataset.autosaveUrl, {
      method: "POST",
      body,
      headers: { "X-CSRFToken": token },
      credentials: "same-origin",
      keepalive,
    })
      // Without a session the answer is the login page (or a refusal of the old CSRF token),
      // not the autosave's JSON.
      .then((response) =>
        response.headers.get("Content-Type")?.startsWith("application/json")
          ? response.json()
          : { state: "signed-out" },
      )
      .then((answer) => {
        inFlight = null;
        if (answer.state === "signed-out") {
          signedOut = true;
          if (paused) return; // it could not be saved by itself signed in either: say why
          showState(SIGNED_OUT, "offline");
          timer = setTimeout(autosave, 5 * AUTOSAVE_PAUSE_MS);
          return;
        }
        if (signedOut) {
          // Back from a session that ended: the figures on the page may predate edits whose
          // preview was refused meanwhile.
          signedOut = false;
          builder.dispatchEvent(new Event("builder:chose"));
          askAgain();
        }
        if (answer.state === "saved" || answer.state === "partial") {
          paused = ""; // returned to the player since the page was drawn
          versionInput.value = answer.version;
          savedEdit = Math.max(savedEdit, carried);
          partial = answer.state === "partial";
          if (edits !== savedEdit) autosave();
          else if (rowsPending()) return; // its landing saves again
          else if (partial) showState(`Saved ${answer.message}`, "partial");
          else showState("All changes saved", "saved");
        } else if (answer.state === "paused") {
          // Submitted or approved meanwhile (in another tab, or by the referee): the edits stay
          // on the page, the next pause asks again, and only Save may withdraw a submission.
          if (answer.message !== paused) announce(`Not saved: ${answer.message}`);
          paused = answer.message;
          showState(`Not saved: ${paused}`, "paused");
        } else if (answer.state === "conflict") {
          stopped = answer.message;
          showState(`Not saved: ${answer.message}`, "conflict");
          announce(`Not saved: ${answer.message}`);
        } else {
          showState(`Not saved: ${answer.message}`, "unreadable");
          if (edits !== carried) autosave();
        }
      })
      .catch(() => {
        inFlight = null;
        if (offline() || !navigator.onLine) {
          showState(OFFLINE, "offline"); // "ffa:online" saves them
          return;
        }
        showState("Not saved: the server could not be reached. Retrying…", "offline");
        timer = setTimeout(autosave, 5 * AUTOSAVE_PAUSE_MS);
      })
      .finally(() => {
        if (inFlight === null && !rowsPending()) settle();
      });
  }
  document.addEventListener("ffa:online", () => autosave());

  const unsaved = () => edits !== savedEdit || rowsPending();
  // Leaving with an edit not yet stored: send it on its way before the next page is asked for
  // (the browser finishes the request after this page is gone); where it cannot be stored by
  // itself, ask first. The next page of this builder may reach the server before the save: a
  // cookie for this page's address names the save (its sitting and its count), and the server
  // draws that page once the save has landed, so it shows the edit and what is typed there next
  // builds on it.
  const sitting = builder.querySelector("input[name=editing_session]").value;
  // While it goes, a page that sent its save on leaving sends no other: the next page is drawn
  // from that one, and a later save of this page (a row landing as it goes) would land after,
  // and make that page one that fell behind. A page still here after the next page's longest
  // wait did not go (a download): it saves again.
  let leftAt = null;
  const going = () => leftAt !== null && performance.now() - leftAt < LEAVE_WAIT_MS + 500;
  function leaveWithSave() {
    if (going()) return;
    autosave({ leaving: true });
    if (inFlight !== edits) return;
    leftAt = performance.now();
    setTimeout(saveSoon, LEAVE_WAIT_MS + 600);
    document.cookie = `ffa_leaving_save=${sitting}:${stampInput.value}; path=${location.pathname}; max-age=10; samesite=strict`;
  }
  window.addEventListener("beforeunload", (event) => {
    if (partial && !unsaved()) {
      event.preventDefault(); // a field it could not read is about to be lost
      return;
    }
    if (!unsaved()) return;
    if (paused || stopped || signedOut || offline()) {
      event.preventDefault();
      return;
    }
    leaveWithSave();
  });
  // A phone's tab switcher (and iOS always) closes a page without beforeunload; a phone may
  // also discard a page it no longer shows. The page going out of sight, and pagehide, are
  // then the last it hears: what is waiting for the pause is sent at once.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") autosave({ keepalive: true });
  });
  window.addEventListener("pagehide", () => {
    if (unsaved() && inFlight !== edits) leaveWithSave();
  });
  // Following a link (the sheet, the history) or sending another form (submitting for review,
  // logging out) with an edit not yet stored: the next request goes once the save has landed,
  // so the next page shows the edit and a submission carries it. The save sent on leaving
  // would race that request, and lose to it on a slow network. A save that hangs holds the
  // next page back no longer than a moment.
  const LEAVE_WAIT_MS = 3000;
  let whenSettled = []; // what to do once no save is on its way
  function settle() {
    const waiting = whenSettled;
    whenSettled = [];
    waiting.forEach((then) => then());
  }
  function leaveOnceSaved(event, leave) {
    if (!unsaved() || paused || stopped || offline()) return;
    event.preventDefault();
    let gone = false;
    const once = () => {
      if (gone) return;
      gone = true;
      leave();
    };
    autosave();
    if (inFlight === null && !rowsPending()) return once();
    whenSettled.push(once);
    setTimeout(once, LEAVE_WAIT_MS);
  }
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[href]");
    if (!link || event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return; // another tab
    if ((link.target && link.target !== "_self") || link.hasAttribute("download")) return;
    const url = new URL(link.href);
    if (url.origin !== location.origin) return;
    if (url.pathname === location.pathname && url.search === location.search) return; // #anchor
    leaveOnceSaved(event, () => window.location.assign(link.href));
  });
  // Captured before the form's own listeners (logging out forgets the kept sheets first), and
  // sent again through them once the save has landed.
  const released = new WeakSet();
  document.addEventListener(
    "submit",
    (event) => {
      const form = event.target;
      if (form === builder || released.has(form) || form.target === "_blank") return;
      leaveOnceSaved(event, () => {
        released.add(form);
        form.requestSubmit(event.submitter);
      });
      if (event.defaultPrevented) event.stopPropagation();
    },
    true,
  );
  // Save (and every no-script button) posts the whole form: nothing is left to store then.
  builder.addEventListener("submit", () => {
    csrfToken();
    nextStamp();
    savedEdit = edits;
    partial = false;
    clearTimeout(timer);
  });
  // A page brought back by Back or Forward may be older than what is stored: show what is.
  // One left with its save on the way hears it land only now, and another tab may have saved
  // on top of it meanwhile: it shows what is stored once its own edits are (after a conflict
  // the player decides).
  function reloadOnceSaved() {
    if (!unsaved()) window.location.reload();
    else if (!stopped) whenSettled.push(reloadOnceSaved);
  }
  window.addEventListener("pageshow", (event) => {
    leftAt = null;
    if (event.persisted) reloadOnceSaved();
  });

  // -- Edits -------------------------------------------------------------------------------------
  function recordEdit(target) {
    if (!target.name || target.name === "new-skill" || target.name === "trait-notation") return;
    noteEdit();
    edited.set(target.name, edits);
    keepRowHooks(target);
  }
  builder.addEventListener("input", (event) => recordEdit(event.target));

  // -- What asks for a preview -------------------------------------------------------------------
  // The form's hx-trigger listens for these: typing in a live field (htmx waits for a pause),
  // a choice in a live select or checkbox (at once). htmx's own trigger filters would pick the
  // same fields with eval, which the Content-Security-Policy refuses. Dispatched after the
  // edit is recorded, so the preview carries its name.
  const TYPED = "input.live:not([type=checkbox]), textarea.live";
  const CHOSEN = "select.live, input.live[type=checkbox]";
  builder.addEventListener("input", (event) => {
    if (event.target.matches(TYPED)) builder.dispatchEvent(new Event("builder:typed"));
  });
  builder.addEventListener("change", (event) => {
    if (event.target.matches(CHOSEN)) builder.dispatchEvent(new Event("builder:chose"));
  });

  // The rows' hooks name what the row holds now.
  function keepRowHooks(target) {
    const row = target.closest("[data-row-index]");
    if (!row) return;
    if (row.hasAttribute("data-skill-row") && target.name.endsWith("-cascade")) {
      row.dataset.cascade = target.value;
    } else if (row.hasAttribute("data-item-row") && target.name.endsWith("-item")) {
      row.dataset.itemRow = target.value.split("|")[0];
    } else if (row.hasAttribute("data-trait-row") && target.name.endsWith("-type")) {
      showControlScore(row, target.selectedOptions[0]);
    }
  }
  // A flaw's row shows its control-score box: as a type becomes a flaw's, ticked if that type
  // has one by default (what the stored trait had); as it becomes a perk's, the box goes and is
  // no longer posted. A flaw that becomes another keeps the box as the player sees it.
  function showControlScore(row, chosen) {
    const label = row.querySelector("[data-control-score]");
    if (!label) return; // a derived-attribute trait's row
    const box = label.querySelector("input");
    const flaw = Boolean(chosen?.hasAttribute("data-flaw"));
    if (flaw && label.hidden) box.checked = chosen.hasAttribute("data-control");
    label.hidden = !flaw;
    box.disabled = !flaw;
    row.querySelector("[data-controlbox]").disabled = !flaw;
  }

  builder.addEventListener("htmx:configRequest", (event) => {
    const waiting = namesSent.get(event.detail.triggeringEvent);
    if (waiting) event.detail.parameters[waiting.box] = waiting.name;
    const token = csrfToken();
    event.detail.headers["X-CSRFToken"] = token;
    if (formToken) event.detail.parameters.csrfmiddlewaretoken = token;
    // The detail is the request's config, handed back to htmx:afterRequest.
    event.detail.editsCarried = new Map(edited);
    event.detail.parameters.edited = [...edited.keys()].join(" ");
    // htmx sends the last clicked submit button with the form: a stepper already changed its
    // field, and the preview must not apply its step a second time.
    if (event.detail.elt === builder) delete event.detail.parameters.action;
  });
  // A preview whose session ended is answered by a redirect to the login page (HX-Redirect):
  // following it would leave the edits behind. The page stays; saving says why it waits.
  builder.addEventListener("htmx:beforeOnLoad", (event) => {
    if (!event.detail.xhr.getResponseHeader("HX-Redirect")) return;
    event.preventDefault();
    event.detail.requestConfig.editsCarried = new Map(); // not applied: the next preview sends them
    signedOut = true;
    if (paused) return; // the page already says why it is not saved by itself
    showState(SIGNED_OUT, "offline");
    clearTimeout(timer);
    timer = setTimeout(autosave, 5 * AUTOSAVE_PAUSE_MS);
  });
  builder.addEventListener("htmx:afterRequest", (event) => {
    if (!event.detail.successful) return;
    for (const [name, edit] of event.detail.requestConfig.editsCarried || []) {
      if (edited.get(name) === edit) edited.delete(name);
    }
  });

  // -- Enter -------------------------------------------------------------------------------------
  // Enter in the add-a-skill or notation box presses that box's Add; in any other field it does
  // nothing (the form's default button would only re-render the page). While a row's add or
  // removal is on its way the Add is held back (disabled, or in a section new from the server
  // and not yet settled, when a press would post the whole page): the name entered then waits
  // its turn, listed under the box, and the box is free for the next one at once. The form
  // itself settles after each preview, its buttons htmx's all along.
  const ADDS = { "new-skill": "[data-action=add-skill]", "trait-notation": "[data-action=add-notation]" };
  const held = (button) => button.disabled || Boolean(button.closest("fieldset.htmx-settling"));
  builder.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.isComposing) return;
    const field = event.target;
    if (!(field instanceof HTMLInputElement || field instanceof HTMLSelectElement)) return;
    event.preventDefault();
    const button = ADDS[field.name] && builder.querySelector(ADDS[field.name]);
    if (!button) return;
    const name = field.value.trim();
    if (name && held(button)) {
      namesWaiting.push({ box: field.name, name });
      field.value = "";
      noteEdit();
      showNamesWaiting();
      announce(`${name}: added once the row on its way is in.`);
    } else if (name) {
      button.click();
    } else {
      addNextWaitingName(); // waiting since a name could not be added
    }
  });
  // The name each press of a box's Add sends, in place of what the box holds when the request
  // goes (the player's next name).
  const namesSent = new WeakMap(); // triggering event -> { box, name }
  const pressesFromLine = new WeakSet(); // the presses that added a name waiting in line
  function addNextWaitingName() {
    const button = namesWaiting.length && builder.querySelector(ADDS[namesWaiting[0].box]);
    if (!button) return;
    if (held(button)) {
      setTimeout(addNextWaitingName, 50); // once the row on its way has landed
      return;
    }
    const next = namesWaiting.shift();
    showNamesWaiting();
    const press = new MouseEvent("click", { bubbles: true, cancelable: true });
    namesSent.set(press, next);
    pressesFromLine.add(press);
    button.dispatchEvent(press);
  }
  function showNamesWaiting() {
    for (const [box, selector] of Object.entries(ADDS)) {
      const button = builder.querySelector(selector);
      const picker = button?.closest(".picker");
      if (!picker) continue;
      const names = namesWaiting.filter((waiting) => waiting.box === box).map((w) => w.name);
      let line = picker.querySelector("[data-names-waiting]");
      if (!names.length) {
        line?.remove();
        continue;
      }
      if (!line) {
        line = document.createElement("p");
        line.className = "hint";
        line.dataset.namesWaiting = "";
        button.after(line);
      }
      line.textContent = `Adding next: ${names.join(", ")}`;
    }
  }

  // -- Steppers ----------------------------------------------------------------------------------
  const hexDigits = builder.dataset.hexDigits; // the catalog's, as the server reads them
  builder.addEventListener("click", (event) => {
    const button = event.target.closest(".stepper__button");
    if (!button) return;
    event.preventDefault();
    const input = button.parentElement.querySelector("input");
    const typed = input.value.trim().toUpperCase();
    let level = /^\d+$/.test(typed) ? Number(typed) : -1;
    if (typed.length === 1 && level < 0) level = hexDigits.indexOf(typed);
    const highest = Number(document.getElementById(`figures-${input.name}`).dataset.max);
    const lowest = Number(input.dataset.min);
    const step = Number(button.dataset.step);
    // Within the range the step stays inside it; from outside it only goes back towards it.
    if (level < 0 || typed === "") level = Number(input.dataset.average);
    else if ((step > 0 && level >= highest) || (step < 0 && level <= lowest)) return;
    else level += step;
    input.value = String(level);
    // Previewed at once: an input event would also start the typing pause, whose preview
    // would replace this one on the way.
    recordEdit(input);
    builder.dispatchEvent(new Event("builder:step"));
  });

  // -- Rows added or removed ---------------------------------------------------------------------
  // A section's button re-renders the section: the edit is stored like any other, and focus
  // goes to the new row, or to the row that took the removed one's place. What the button asked
  // for travels with its own request: a button pressed while a typed edit's preview is on its
  // way waits in the queue, and that preview settles in between.
  const PICKER_BOX = ".picker input:not([type=hidden])";
  // A row asked for while a preview is on its way waits in htmx's queue, where the next typed
  // edit's preview would take its place (the form's previews keep only the latest), and where
  // a second press would wait too, to be dropped when the first replaced its button. So that
  // preview is not asked for (the row's request carries the edit when it goes), and the
  // section buttons are held back as while a row is on its way. A preview already in the
  // queue ahead of the row is asked again when its turn comes: it goes, since htmx moves its
  // queue on only when a request ends, and holding it back there would strand the row.
  const previewsLetThrough = new WeakSet(); // their triggering events
  builder.addEventListener("htmx:confirm", (event) => {
    const button = event.detail.elt;
    const triggering = event.detail.triggeringEvent;
    if (button === builder) {
      if (!rowsWaiting.size) previewsLetThrough.add(triggering);
      else if (!previewsLetThrough.has(triggering)) event.preventDefault();
      return;
    }
    if (!(button instanceof HTMLButtonElement) || !button.value) return;
    const picker = button.closest(".picker");
    const box = picker?.querySelector(PICKER_BOX);
    const pressed = box && !button.value.includes(":") && !namesSent.has(triggering);
    const waiting = namesWaiting.some((name) => name.box === box?.name);
    if (pressed && waiting && box.value.trim() && !picker.querySelector(".errorlist")) {
      // Names entered before this one are still to go: it takes its place behind them. (After
      // a refusal the press is the mended name, entered first.)
      event.preventDefault();
      namesWaiting.push({ box: box.name, name: box.value.trim() });
      box.value = "";
      noteEdit();
      showNamesWaiting();
      addNextWaitingName();
      return;
    }
    if (!rowsWaiting.has(triggering)) noteEdit();
    rowsWaiting.set(triggering, button);
    if (!focusAtPress.has(triggering)) {
      focusAtPress.set(triggering, { element: document.activeElement, at: performance.now() });
    }
    if (button.dataset.action === "remove" && document.activeElement === button) {
      // Held back while its row goes, the button would drop focus to the top of the page:
      // focus goes at once to the row that will take the removed one's place, or, for the
      // last row of all, to the section's add box.
      const row = button.closest("[data-row-index]");
      const stays = row?.nextElementSibling || row?.previousElementSibling;
      const control = stays?.matches("[data-row-index]")
        ? firstControlIn(stays)
        : button.closest("fieldset.box")?.querySelector(PICKER_BOX);
      if (control) {
        control.focus();
        focusAtPress.set(triggering, { element: control, at: performance.now() });
      }
    }
    if (pressed) {
      // The name goes as it was when pressed, and the box is free for the next one at once:
      // a request waiting behind a preview reads the form only when it goes.
      namesSent.set(triggering, { box: box.name, name: box.value.trim() });
      box.value = "";
      if (document.activeElement === button) {
        // Held back while the row is on its way, the button would drop focus to the top of
        // the page: the box keeps it, for the next name, until the row takes it.
        box.focus();
        focusAtPress.set(triggering, { element: box, at: performance.now() });
      }
    }
    rowsAsked.set(triggering, rowAction(button, namesSent.get(triggering)?.name));
    const held = button.closest("[hx-disabled-elt]")?.getAttribute("hx-disabled-elt");
    if (!held) return;
    for (const other of document.querySelectorAll(held)) {
      if (other.disabled) continue;
      other.disabled = true;
      other.dataset.held = "";
    }
  });
  // Where the player was when a row was asked for, and when: gone on to another field by the
  // time the row lands, they keep it (triggering event -> the element focused then).
  const focusAtPress = new WeakMap();
  // The last control the player pressed a pointer on, and when: a click into the add box
  // after an add was asked for is the next name on its way there.
  let lastPointed = { element: null, at: 0 };
  builder.addEventListener(
    "pointerdown",
    (event) => {
      lastPointed = { element: event.target, at: event.timeStamp };
    },
    true,
  );
  // "add_skill" names the skill it adds, from its box or the line of names waiting.
  function rowAction(button, name) {
    const adds = !button.value.includes(":") && button.closest(".picker");
    return adds && name?.trim() ? `${button.value}:${name.trim()}` : button.value;
  }
  // htmx holds them from here on, as it sends the request.
  function releaseButtons() {
    for (const [triggering, button] of rowsWaiting) {
      if (button.isConnected) continue;
      rowsWaiting.delete(triggering); // htmx drops it
      rowsAsked.delete(triggering);
    }
    if (rowsWaiting.size) return;
    for (const button of builder.querySelectorAll("[data-held]")) {
      button.disabled = false;
      delete button.dataset.held;
    }
  }
  builder.addEventListener("htmx:beforeRequest", (event) => {
    const triggering = event.detail.requestConfig.triggeringEvent;
    if (!rowsWaiting.delete(triggering)) return;
    rowsOnTheWay.add(triggering);
    releaseButtons();
  });
  // Landed, refused or lost: saved with the rest (at once for a page waiting to leave), or,
  // when nothing came of it, the save state says again what is stored.
  function rowEnded(config) {
    rowsAsked.delete(config.triggeringEvent);
    if (!rowsOnTheWay.delete(config.triggeringEvent)) return;
    releaseButtons();
    noteEdit();
  }
  builder.addEventListener("htmx:beforeRequest", (event) => {
    const button = event.detail.elt;
    if (!(button instanceof HTMLButtonElement) || !button.value) return;
    const [verb, index] = button.value.split(":");
    const section = button.closest("fieldset.box");
    const rows = section ? section.querySelectorAll("[data-row-index]").length : 0;
    const box = section?.querySelector(PICKER_BOX);
    // An add from a box carries the name pressed (htmx:confirm); what the box holds now is
    // the player's next name.
    const waiting = namesSent.get(event.detail.requestConfig.triggeringEvent);
    const name = waiting ? waiting.name : "";
    const sent = waiting ? "" : (box?.value ?? "");
    const triggering = event.detail.requestConfig.triggeringEvent;
    if (rowsAsked.has(triggering)) rowsAsked.set(triggering, rowAction(button, name));
    event.detail.requestConfig.rowChange = {
      verb, index: Number(index), section: section?.id, rows, name, sent, editsAtSend: edits,
      fromLine: pressesFromLine.has(triggering),
    };
  });
  // What the player typed or ticked in the section's rows while its row was on its way: the
  // section comes back as it was sent, and would put back what was there before.
  function typedSince(section, editsAtSend) {
    const typed = [];
    for (const [name, edit] of edited) {
      if (edit <= editsAtSend) continue;
      for (const control of section.querySelectorAll(`[name="${CSS.escape(name)}"]`)) {
        const box = control.type === "checkbox";
        typed.push({ name, value: control.value, checked: control.checked, box });
      }
    }
    return typed;
  }
  // A row's controls are named by its place ("skill-2-level"): after a removal, those of the
  // rows below it move up one, and the removed row's are gone.
  function nameAfter(name, removal) {
    if (!removal) return name;
    const [prefix, place, ...field] = name.split("-");
    const row = Number(place);
    if (prefix !== removal.prefix || !field.length || !Number.isInteger(row)) return name;
    if (row < removal.index) return name;
    return row === removal.index ? null : [prefix, row - 1, ...field].join("-");
  }
  function putBackTypedInRows(section, change) {
    const rowsNow = section.querySelectorAll("[data-row-index]").length;
    const removal =
      change.verb.startsWith("remove") && rowsNow === change.rows - 1
        ? { prefix: change.verb.split("_")[1], index: change.index }
        : null;
    change.removal = removal;
    for (const typed of change.typedInRows || []) {
      const name = nameAfter(typed.name, removal);
      if (!name) continue;
      for (const control of section.querySelectorAll(`[name="${CSS.escape(name)}"]`)) {
        if (!typed.box) control.value = typed.value;
        else if (control.value === typed.value) control.checked = typed.checked;
        keepRowHooks(control);
      }
    }
    if (!removal) return;
    // The next preview names the edits by the rows' new places.
    const renamed = [...edited].map(([name, edit]) => [nameAfter(name, removal), edit]);
    edited.clear();
    for (const [name, edit] of renamed) if (name) edited.set(name, edit);
  }
  // The section comes back with its add box as it was sent (a name it could not add, with
  // why): what the player typed there meanwhile (the next name, on a slow network) is kept.
  builder.addEventListener("htmx:beforeSwap", (event) => {
    const change = event.detail.requestConfig?.rowChange;
    const section = change && document.getElementById(change.section);
    if (!section) return;
    change.swapped = event.detail.shouldSwap;
    change.typedInRows = typedSince(section, change.editsAtSend);
    const box = section.querySelector(PICKER_BOX);
    const press = focusAtPress.get(event.detail.requestConfig.triggeringEvent);
    const pointedInBox = box && lastPointed.element === box && lastPointed.at > (press?.at ?? 0);
    if (box && (box.value !== change.sent || pointedInBox)) change.typedAhead = box.value;
    // The server opens the skill list only for an add from it; one the player opened while the
    // row was on its way stays open, or the next tap lands on what its closing uncovers.
    change.browsing = section.querySelector("details.catalog")?.open;
    const focused = document.activeElement;
    if (focused && focused !== document.body && focused !== press?.element) {
      // Gone on to another field: it keeps focus (one in the section through its twin in the
      // section redrawn, moved up with its row after a removal).
      change.stayIn = section.contains(focused) ? focused : null;
      // The caret, or what was selected to type over: the field is redrawn under it.
      const caret = focused.selectionStart;
      change.caret = typeof caret === "number" ? [caret, focused.selectionEnd] : null;
    }
  });
  // In the same task as the swap, before anything else can run: the box gets back what was
  // typed in it meanwhile, and focus goes where the player works next. Moved later (htmx
  // settles 20 ms after), focus could leave a box the player had just begun to fill.
  builder.addEventListener("htmx:afterSwap", (event) => {
    const change = event.detail.requestConfig?.rowChange;
    if (!change || change.landed !== undefined) return;
    change.landed = true;
    // The row shown added or removed is an edit to store from this task on: a reload before
    // htmx settles would otherwise ask to leave, or drop it.
    rowEnded(event.detail.requestConfig);
    showNamesWaiting(); // the section is new from the server
    const section = document.getElementById(change.section);
    if (!section) return;
    putBackTypedInRows(section, change);
    if (change.browsing) section.querySelector("details.catalog")?.setAttribute("open", "");
    const box = section.querySelector(PICKER_BOX);
    if (box && change.typedAhead !== undefined) {
      box.value = change.typedAhead;
      box.setSelectionRange(box.value.length, box.value.length);
    }
    change.refused = focusAfterRowChange(section, change, box);
  });
  // A control of the section as the server sent it back: by its name, with its row's new
  // place after a removal (null if it was in the removed row), and by its value among the
  // boxes of a row, which share a name; else by its id. The skill list's summary has neither.
  function twinIn(section, control, removal) {
    if (control.localName === "summary") return section.querySelector("details.catalog > summary");
    if (!control.name) return control.id ? section.querySelector(`#${CSS.escape(control.id)}`) : null;
    const name = nameAfter(control.name, removal);
    const value = control.type === "checkbox" ? `[value="${CSS.escape(control.value)}"]` : "";
    return name && section.querySelector(`[name="${CSS.escape(name)}"]${value}`);
  }
  // Where focus goes once a row has come or gone: to the new row, or to the row that took the
  // removed one's place; a player typing the next name in the add box keeps typing there.
  // Returns whether an add was refused.
  function focusAfterRowChange(section, change, box) {
    const { verb, index } = change;
    const rows = [...section.querySelectorAll("[data-row-index]")];
    const refused = verb.startsWith("add") && rows.length === change.rows;
    const why = refused && section.querySelector(".picker .errorlist")?.textContent.trim();
    const kept = change.stayIn && twinIn(section, change.stayIn, change.removal);
    if (change.stayIn !== undefined && (kept || !change.stayIn)) {
      // Gone on to another field, refused or not: what they type next belongs there. (Gone
      // into the row removed, they go where focus goes after a removal.)
      if (kept) {
        focusInView(kept);
        // A number field does not tell its caret: one typed in meanwhile goes on at its end;
        // one only entered is, as Tab enters it, all selected to be typed over.
        const typing = change.typedInRows.some((typed) => typed.name === change.stayIn.name);
        if (change.caret) kept.setSelectionRange(...change.caret);
        else if (kept.type === "number" && typing) caretAtEnd(kept);
        else if (kept.type === "number") kept.select();
      }
      announce(refused ? why : verb.startsWith("add") ? "Row added." : "Row removed.");
      return refused;
    }
    if (refused) {
      // Nothing was added (a name not in the catalog): back to the box, to fix what was typed,
      // hearing why. The box is new from the server, and focus would put the caret before
      // the name, where Backspace mends nothing.
      if (box) {
        focusInView(box);
        box.setSelectionRange(box.value.length, box.value.length);
      }
      announce(why);
      return true;
    }
    let target = null;
    if (verb.startsWith("add")) {
      target = rows.at(-1);
      announce(target ? "Row added." : "");
    } else if (verb.startsWith("remove")) {
      target = rows[Math.min(index, rows.length - 1)] || null;
      announce("Row removed.");
    }
    // Names entered one after another, or the box taken up for the next: the player is
    // still entering names there.
    const enteringNames =
      change.typedAhead !== undefined ||
      change.fromLine ||
      namesWaiting.some((waiting) => waiting.box === box?.name);
    const control =
      box && enteringNames
        ? box
        : target
          ? firstControlIn(target)
          : section.querySelector(PICKER_BOX) || section.querySelector("button");
    if (control) focusInView(control);
    if (box && change.name && control !== box && target?.contains(control)) {
      handOff = { control, box: box.name, until: performance.now() + HAND_OFF_MS };
    }
    return false;
  }
  // The section drawn again can scroll the page, and a control that had focus before is given
  // it back by htmx (by its id) without scrolling: focusing it again would not scroll either.
  function focusInView(control) {
    control.focus();
    control.scrollIntoView({ block: "nearest" });
  }
  // Where focus goes in a row. A trait's type, level and frequency come from the grid or the
  // notation: what is left to write is its description. (Text inserted into a list is lost
  // without an event, so the next notation begun there could not be handed on to its box.)
  function firstControlIn(row) {
    return (
      row.querySelector("[name$='-name']") ||
      row.querySelector("input:not([type=hidden]), select, button")
    );
  }
  // Text that reaches the new row in the moment focus is moved there, and that cannot be meant
  // for it, was typed for the box the row came from: the next name, begun as the row landed (a
  // script's fill focuses the box, then inserts; a typist is mid-word). It goes on in the box.
  // Letters cannot be a level; in a text field only a name the box adds is taken for one, as
  // what is typed there soon after the row appears may well be its cascade.
  const HAND_OFF_MS = 300;
  let handOff = null; // { control, box: its name, until }
  function giveToTheBox(event, text) {
    const pending = handOff;
    if (!pending || event.target !== pending.control || !text) return;
    if (performance.now() > pending.until) {
      handOff = null;
      return;
    }
    const control = pending.control;
    const forTheBox =
      control instanceof HTMLSelectElement ||
      (control.type === "number" ? !/^[\d-]+$/.test(text) : namesAnAdd(pending.box, text));
    const box = forTheBox && builder.querySelector(`[name="${CSS.escape(pending.box)}"]`);
    if (!box) return;
    handOff = null;
    event.preventDefault();
    box.value += text;
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
  }
  // Whether the box would add ``text``: a skill of the catalog list (as "Pilot-2" too), or a
  // trait in its notation.
  function namesAnAdd(box, text) {
    if (box !== "new-skill") return text.trim().startsWith("[");
    const name = text.split(/[-(]/)[0].trim().toLowerCase();
    return [...builder.querySelectorAll('button[value^="add_skill:"]')].some(
      (button) => button.value.slice("add_skill:".length).toLowerCase() === name,
    );
  }
  builder.addEventListener(
    "beforeinput",
    (event) => giveToTheBox(event, event.inputType.startsWith("insert") && event.data),
    true,
  );
  // A select takes letters as a choice of option, with no input to read them from.
  builder.addEventListener(
    "keydown",
    (event) => {
      if (!(event.target instanceof HTMLSelectElement)) return;
      const letter = event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey;
      giveToTheBox(event, letter && event.key);
    },
    true,
  );
  // A number field has no caret to set; the same field as text has.
  function caretAtEnd(field) {
    field.type = "text";
    field.setSelectionRange(field.value.length, field.value.length);
    field.type = "number";
  }
  // Nothing came back. Lost on the network, the row is asked for again (below). Refused as
  // signed out, the name waits in its box.
  builder.addEventListener("htmx:afterRequest", (event) => {
    const change = event.detail.requestConfig?.rowChange;
    if (!change || change.swapped) return;
    rowEnded(event.detail.requestConfig);
    const box = document.getElementById(change.section)?.querySelector(PICKER_BOX);
    if (event.detail.xhr.status === 0 && !signedOut) {
      const button = event.detail.elt;
      const lost = { button, value: button.value, section: change.section, row: rowHeld(button) };
      if (box && change.name) namesWaiting.unshift({ box: box.name, name: change.name });
      else if (retried.has(event.detail.requestConfig.triggeringEvent)) rowsLost.unshift(lost);
      else rowsLost.push(lost);
      showNamesWaiting();
      retryLater();
      return;
    }
    if (box && !box.value) box.value = change.name;
    else if (box && change.name && change.verb.startsWith("add")) {
      // The box holds the next name: this one waits its turn again.
      namesWaiting.unshift({ box: box.name, name: change.name });
      showNamesWaiting();
    }
  });
  // A row lost on the network is pressed again after a pause (at once when the connection
  // returns), one at a time, until one comes. A removal is pressed again on its own button, or,
  // once the section has been drawn again, on the row at its place if that row holds just what
  // the removed one held: one that holds anything else is another row, which stays.
  const retried = new WeakSet(); // the presses made again
  let retryTimer = null;
  function retryLater() {
    showState("Not saved: the server could not be reached. Retrying…", "offline");
    clearTimeout(retryTimer);
    retryTimer = setTimeout(askAgain, 5 * AUTOSAVE_PAUSE_MS);
  }
  function askAgain() {
    clearTimeout(retryTimer);
    if (offline() || signedOut) return; // until "ffa:online", or signing in again
    addNextWaitingName(); // a name lost waits first in line
    retryLostRows();
  }
  function retryLostRows() {
    if (offline() || signedOut) return;
    const lost = rowsLost[0];
    if (!lost) return;
    const section = document.getElementById(lost.section);
    const twin = section?.querySelector(`button[value="${CSS.escape(lost.value)}"]`);
    const button = lost.button.isConnected
      ? lost.button
      : twin && (!lost.value.startsWith("remove") || rowHeld(twin) === lost.row) && twin;
    if (button && held(button)) {
      setTimeout(retryLostRows, 50); // once the row on its way has landed
      return;
    }
    rowsLost.shift();
    if (!button) {
      announce("A row could not be removed, and the rows have changed since. Press its Remove again.");
      noteEdit();
      retryLostRows();
      return;
    }
    const press = new MouseEvent("click", { bubbles: true, cancelable: true });
    retried.add(press);
    // Not the player's press: focus stays where they are when the row lands.
    focusAtPress.set(press, { element: null, at: performance.now() });
    button.dispatchEvent(press);
  }
  // What the row of a button holds, as its fields show it.
  function rowHeld(button) {
    const row = button.closest("[data-row-index]");
    const fields = row ? [...row.querySelectorAll("input, select")] : [];
    return JSON.stringify(fields.map((field) => [field.name, field.value, field.checked]));
  }
  document.addEventListener("ffa:online", askAgain);
  // The next name waiting goes once the section has settled (its new Add is htmx's then). After
  // a refusal the names waiting for that box wait: adding them would take the message away
  // before it was read. The next row added or removed (or Enter in the empty box) sends them.
  // A name for the other box goes: nothing there waits to be mended.
  builder.addEventListener("htmx:afterSettle", (event) => {
    // One swap settles several elements (the section and the figures), each with this event.
    const config = event.detail.requestConfig;
    const change = config?.rowChange;
    if (!change) return;
    delete config.rowChange;
    const refusedBox =
      change.refused && document.getElementById(change.section)?.querySelector(PICKER_BOX)?.name;
    if (!refusedBox || namesWaiting[0]?.box !== refusedBox) addNextWaitingName();
    if (rowsLost.length) retryLostRows();
  });

  // A field left empty takes a default its placeholder shows: the species' language and
  // culture, the minimum age (terms and EXP DV). The feedback, sent with every preview,
  // carries them.
  const PLACEHOLDERS = {
    age: "placeholderAge",
    native_language: "placeholderLanguage",
    native_culture: "placeholderCulture",
  };
  document.body.addEventListener("htmx:afterSettle", () => {
    const shown = document.getElementById("feedback")?.dataset;
    if (!shown) return;
    for (const [name, key] of Object.entries(PLACEHOLDERS)) {
      if (key in shown) builder.elements.namedItem(name).placeholder = shown[key];
    }
  });

  // -- What a screen reader hears ----------------------------------------------------------------
  // What one swap brings (the row added, then the points it moved) is said as one message:
  // a second message so soon would cut the first off.
  let news = [];
  function announce(text) {
    if (!announcer || !text) return;
    if (!news.length) {
      announcer.textContent = "";
      setTimeout(() => {
        announcer.textContent = news.join(" ");
        news = [];
      }, 50);
    }
    news.push(text);
  }
  const sentence = (text) => (/[.!?]$/.test(text) ? text : `${text}.`);
  let knownProblems = new Set(
    [...document.querySelectorAll("#problems [data-problem]")].map((p) => p.textContent.trim()),
  );
  let lastStatus = document.getElementById("status-points")?.textContent.trim();
  document.body.addEventListener("htmx:afterSettle", () => {
    const shown = [...document.querySelectorAll("#problems [data-problem]")].map((p) =>
      p.textContent.trim(),
    );
    const fresh = shown.filter((message) => !knownProblems.has(message));
    knownProblems = new Set(shown);
    const status = document.getElementById("status-points")?.textContent.trim();
    if (status === lastStatus && !fresh.length) return;
    lastStatus = status;
    announce([status, ...fresh].map(sentence).join(" "));
  });
}
