// Offline: the service worker, the "Offline — read-only" banner, forms shut while offline, and
// the kept sheets forgotten when their reader logs out or someone else logs in.
//
// A page is read-only when the browser is offline, or when it is a copy the service worker
// kept (it marks <body data-offline-copy>). Then every form control and htmx control is
// disabled, and htmx sends nothing but GETs: nothing is written. A control keeps its value
// while disabled, so an edit typed in the builder before the connection went stays on the
// page; when it returns the controls open again and "ffa:online" tells the builder to save.
(() => {
  const body = document.body;
  const KEPT_PAGES = "ffa-pages-";
  const USER_KEY = "ffa-offline-user";
  const isCopy = body.hasAttribute("data-offline-copy");
  const banner = document.getElementById("offline-banner");
  const bannerText = banner?.querySelector("[data-offline-text]");
  const reload = banner?.querySelector("[data-offline-reload]");
  const CONTROLS = "input, select, textarea, button, [hx-post], [hx-put], [hx-patch], [hx-delete]";

  async function forgetKeptPages() {
    if (!("caches" in window)) return;
    for (const key of await caches.keys()) {
      if (key.startsWith(KEPT_PAGES)) await caches.delete(key);
    }
  }

  // -- Whose sheets are kept -------------------------------------------------------------------
  // The pages kept on this device are the last logged-in reader's. Someone else (or no one)
  // on a live page: forget them. A kept copy is the reader's own page and says nothing new.
  if (!isCopy) {
    const reader = body.dataset.reader || "";
    let last;
    try {
      last = localStorage.getItem(USER_KEY);
    } catch {
      last = null; // storage refused (private mode): forget on every logout only
    }
    if (last !== reader) {
      forgetKeptPages();
      try {
        if (reader) localStorage.setItem(USER_KEY, reader);
        else localStorage.removeItem(USER_KEY);
      } catch {
        // nothing to remember then
      }
    }
  }
  // Logging out forgets them before the form goes: a shared device keeps nobody's sheets.
  for (const form of document.querySelectorAll("form[data-logout]")) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await forgetKeptPages();
        localStorage.removeItem(USER_KEY);
      } finally {
        form.submit();
      }
    });
  }

  // -- Read-only while offline ----------------------------------------------------------------
  function shut(readOnly) {
    for (const control of document.querySelectorAll(CONTROLS)) {
      if (control.closest("[data-offline-banner]")) continue;
      if (readOnly && !control.disabled) {
        control.disabled = true;
        control.dataset.offlineShut = "";
      } else if (!readOnly && control.hasAttribute("data-offline-shut")) {
        control.disabled = false;
        delete control.dataset.offlineShut;
      }
    }
  }

  // A kept copy is shown when the page could not be fetched: the device was offline, or the
  // server did not answer. The browser counting itself online says nothing about the server,
  // so the banner asks it (/healthz) before it says the connection is back.
  async function serverAnswers() {
    try {
      return (await fetch("/healthz", { cache: "no-store" })).ok;
    } catch {
      return false;
    }
  }

  async function show() {
    const offline = !navigator.onLine;
    const readOnly = offline || isCopy;
    document.documentElement.toggleAttribute("data-offline", readOnly);
    shut(readOnly);
    if (!banner) return;
    banner.hidden = !readOnly;
    reload.hidden = offline || !isCopy;
    if (offline) {
      bannerText.textContent = isCopy
        ? "Offline — read-only. This is the copy kept when you last opened this page."
        : "Offline — read-only. Nothing can be saved until the connection returns; what you typed stays on this page.";
    } else if (isCopy) {
      bannerText.textContent = "Read-only. This is the copy kept when you last opened this page.";
      const answered = await serverAnswers();
      if (!navigator.onLine) return; // gone offline meanwhile: that event has its own banner
      bannerText.textContent = answered
        ? "Back online. This is an offline copy: reload to see the latest and to make changes."
        : "The server cannot be reached — read-only. This is the copy kept when you last opened this page.";
    }
  }

  // -- An action that got no answer ----------------------------------------------------------
  // A post from a region that records play (the play sheet, an encounter: data-records) that
  // the server never answered, or answered with an error, leaves the page as it was, as if the
  // tap had not been seen. It may have been recorded before the connection failed, so the page
  // says so and offers a reload rather than inviting the same action again.
  function unanswered(event) {
    const verb = (event.detail.requestConfig?.verb || "get").toLowerCase();
    if (verb === "get" || !banner || !event.detail.elt.closest("[data-records]")) return;
    bannerText.textContent = "No answer: this may not have been recorded. Reload to see what was.";
    reload.hidden = false;
    banner.hidden = false;
  }
  body.addEventListener("htmx:sendError", unanswered);
  body.addEventListener("htmx:responseError", unanswered);

  window.addEventListener("offline", show);
  window.addEventListener("online", () => {
    show();
    if (!isCopy) document.dispatchEvent(new Event("ffa:online"));
  });
  reload?.addEventListener("click", () => window.location.reload());
  // htmx writes nothing while the page is read-only, whatever asks it to.
  body.addEventListener("htmx:beforeRequest", (event) => {
    const verb = (event.detail.requestConfig?.verb || "get").toLowerCase();
    if (verb !== "get" && document.documentElement.hasAttribute("data-offline")) {
      event.preventDefault();
    }
  });
  show();

  if ("serviceWorker" in navigator && body.dataset.serviceWorker) {
    navigator.serviceWorker.register(body.dataset.serviceWorker, { scope: "/" }).catch(() => {
      // No worker (an old browser, a private window): the site works, only not offline.
    });
  }
})();
