// The offline page's service worker (served by games.offline.views.service_worker). It keeps the
// page, the site's scripts and styles, the Pyodide runtime and the engine's wheel in one cache
// whose name changes with any of them; an older cache is dropped once this one is complete.
"use strict";
const CACHE = "{{ cache_name }}";
const PRECACHE = {{ urls|safe }};
const PAGE = PRECACHE[0];
// Past this, a page load stops waiting for a slow network and opens the cached page.
const NETWORK_WAIT_MS = 2500;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(PRECACHE)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith("setback-offline-") && n !== CACHE).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

function withTimeout(promise, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("network too slow")), ms);
    promise.then((value) => { clearTimeout(timer); resolve(value); }, (error) => { clearTimeout(timer); reject(error); });
  });
}

// The page itself: the network's copy when there is one (a fresh CSRF token, the menu of who is
// signed in), kept for next time; the cached copy when there is none.
async function pageFirstFromNetwork(request) {
  const cache = await caches.open(CACHE);
  try {
    const response = await withTimeout(fetch(request), NETWORK_WAIT_MS);
    if (response.ok) await cache.put(PAGE, response.clone());
    return response;
  } catch (error) {
    const cached = await cache.match(PAGE);
    if (cached) return cached;
    throw error;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate" && url.pathname === PAGE) {
    event.respondWith(pageFirstFromNetwork(request));
    return;
  }
  // Everything else the page loads from the cache when it is there (versioned by the cache's
  // name), else from the network; JSON calls (session, uploads) are never cached.
  event.respondWith(caches.open(CACHE).then((cache) => cache.match(request)).then((hit) => hit || fetch(request)));
});
