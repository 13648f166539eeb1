// Offline: the service worker, the "Offline — read-only" banner, forms shut while offline, and
// the kept sheets forgotten when their reader logs out or someone else logs in. A page offline,
// or a kept copy (<body data-offline-copy>), has every control disabled (values kept) and htmx
// sends only GETs; back online the controls open and "ffa:online" tells the builder to save.
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

  // The pages kept here are the last reader's: someone else (or no one) on a live page forgets
  // them. Storage refused (private mode): they are forgotten on every logout only.
  const remembered = (use) => {
    try {
      return use(localStorage);
    } catch {
      return null;
    }
  };
  const reader = body.dataset.reader || "";
  if (!isCopy && remembered((storage) => storage.getItem(USER_KEY)) !== reader) {
    forgetKeptPages();
    remembered((storage) => (reader ? storage.setItem(USER_KEY, reader) : storage.removeItem(USER_KEY)));
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

  // A kept copy was shown as the device was offline or the server did not answer: online says
  // nothing of the server, so the banner asks it (/healthz) before saying the connection is back.
  const serverAnswers = () => fetch("/healthz", { cache: "no-store" }).then((answer) => answer.ok, () => false);

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

  // A post recording play (data-records) that got no answer, or an error, may have been recorded
  // all the same: the page says so and offers a reload rather than inviting the action again.
  function unanswered(event) {
    const verb = (event.detail.requestConfig?.verb || "get").toLowerCase();
    if (verb === "get" || !banner || !event.detail.elt.closest("[data-records]")) return;
    bannerText.textContent = "No answer: this may not have been recorded. Reload to see what was.";
    reload.hidden = false;
    banner.hidden = false;
  }
  for (const failure of ["htmx:sendError", "htmx:responseError"]) body.addEventListener(failure, unanswered);

  window.addEventListener("offline", show);
  window.addEventListener("online", () => {
    show();
    if (!isCopy) document.dispatchEvent(new Event("ffa:online"));
  });
  reload?.addEventListener("click", () => window.location.reload());
  // htmx writes nothing while the page is read-only, whatever asks it to.
  body.addEventListener("htmx:beforeRequest", (event) => {
    const verb = (event.detail.requestConfig?.verb || "get").toLowerCase();
    if (verb !== "get" && document.documentElement.hasAttribute("data-offline")) event.preventDefault();
  });
  show();

  if ("serviceWorker" in navigator && body.dataset.serviceWorker) {
    navigator.serviceWorker.register(body.dataset.serviceWorker, { scope: "/" }).catch(() => {
      // No worker (an old browser, a private window): the site works, only not offline.
    });
  }
})();
