// The service worker: the sheets and play sheets a person opened are asked of the network first
// and kept, and offline the kept copy is shown, marked for offline.js; static files come from the
// cache first (their names change with their content); nothing else is kept, never a POST. Kept
// pages never outlive their reader's session: offline.js deletes them on logout or another
// login, and the worker when a page lands on the login page.
const VERSION = "1";
const PAGES = `ffa-pages-v${VERSION}`;
const STATIC = `ffa-static-v${VERSION}`;
const SHEET = /^\/characters\/\d+\/(play\/)?$/;
const LOGIN = "/accounts/login/";
// What marks a kept copy: an attribute on <body>, read by offline.js (no script: the CSP).
const COPY_MARK = "data-offline-copy";

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) {
        if (key !== PAGES && key !== STATIC) await caches.delete(key);
      }
      await self.clients.claim();
      // A sheet open before the worker ran (a first visit) was not fetched through it: keep it.
      for (const client of await self.clients.matchAll({ type: "window" })) {
        const path = new URL(client.url).pathname;
        if (SHEET.test(path)) await networkFirst(new Request(path)).catch(() => {});
      }
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/static/")) {
    event.respondWith(cacheFirst(request));
  } else if (request.mode === "navigate" && SHEET.test(url.pathname)) {
    event.respondWith(networkFirst(request));
  } else if (request.mode === "navigate") {
    event.respondWith(fetch(request).then(forgetIfLoggedOut, () => notKept()));
  }
});

// A page that lands on the login page: the server no longer knows the session, so nobody may
// read the kept sheets on this device any more.
async function forgetIfLoggedOut(response) {
  if (new URL(response.url || self.location.href).pathname === LOGIN) await caches.delete(PAGES);
  return response;
}

async function networkFirst(request) {
  let response;
  try {
    response = await forgetIfLoggedOut(await fetch(request));
  } catch {
    const kept = await caches.match(request, { cacheName: PAGES });
    return kept ? markedCopy(kept) : notKept();
  }
  // Only the sheet itself: not a redirect to the login page, not someone else's 404.
  const html = (response.headers.get("Content-Type") || "").startsWith("text/html");
  if (response.status === 200 && !response.redirected && response.type === "basic" && html) {
    const cache = await caches.open(PAGES);
    await cache.put(request, response.clone());
  }
  return response;
}

async function markedCopy(kept) {
  const text = (await kept.text()).replace("<body", `<body ${COPY_MARK}`);
  return new Response(text, { status: 200, headers: kept.headers });
}

async function cacheFirst(request) {
  const kept = await caches.match(request, { cacheName: STATIC });
  if (kept) return kept;
  const response = await fetch(request);
  if (response.status === 200) {
    const cache = await caches.open(STATIC);
    await cache.put(request, response.clone());
  }
  return response;
}

// A page that was never opened here, asked for without a network: say so, and list the
// sheets that can be read.
async function notKept() {
  const cache = await caches.open(PAGES);
  const links = [];
  for (const request of await cache.keys()) {
    const path = new URL(request.url).pathname;
    const page = await cache.match(request);
    const title = ((await page.text()).match(/<title>([^<]*)<\/title>/) || [null, path])[1];
    links.push(`<li><a href="${path}">${title}</a></li>`);
  }
  const list = links.length
    ? `<p>These pages were opened on this device and can be read:</p><ul>${links.join("")}</ul>`
    : "<p>No sheet has been opened on this device yet.</p>";
  const body =
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<title>Offline · FFA</title><link rel="stylesheet" href="/static/css/site.css"></head>' +
    `<body ${COPY_MARK}><main class="page"><h1>Offline</h1>` +
    "<p>This page was not opened on this device while online, so it cannot be shown now.</p>" +
    `${list}</main></body></html>`;
  return new Response(body, {
    status: 503,
    headers: { "Content-Type": "text/html; charset=utf-8" },
  });
}
