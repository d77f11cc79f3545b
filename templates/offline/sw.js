// The offline page's service worker (served by games.offline.views.service_worker). It keeps the
// page, the site's scripts and styles, the Pyodide runtime and the engine's wheel in one cache
// whose name changes with any of them; an older cache is dropped once this one is complete.
// Its scope is the whole site, for one thing only: a page of the site that the network cannot
// bring is answered with the page saying what works without one. Every other request of the
// site goes to the network as if there were no service worker.
"use strict";
const CACHE = "{{ cache_name }}";
const PRECACHE = {{ urls|safe }};
const PAGE = PRECACHE[0];
const UNAVAILABLE = PRECACHE[1];
const PRECACHED = new Set(PRECACHE);
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

// Any other page of the site: the network's, or when there is none, the page that says what
// works without one (the address stays the one asked for, so "Try again" reloads it).
async function elsewhereFromNetwork(request) {
  try {
    return await fetch(request);
  } catch (error) {
    const page = await caches.match(UNAVAILABLE, { cacheName: CACHE, ignoreVary: true });
    if (page) return page;
    throw error;
  }
}

// Whether a request comes from a page the service worker keeps (the offline page, the page
// for no network): those load the kept copies first; the rest of the site the network's.
async function fromAKeptPage(event) {
  const client = event.clientId ? await self.clients.get(event.clientId) : null;
  if (!client) return false;
  const path = new URL(client.url).pathname;
  return path.startsWith(PAGE); // the page, the page for no network, the engine's Web Worker
}

async function keptFile(event) {
  const cache = await caches.open(CACHE);
  if (await fromAKeptPage(event)) {
    const hit = await cache.match(event.request);
    return hit || fetch(event.request);
  }
  try {
    return await fetch(event.request);
  } catch (error) {
    const hit = await cache.match(event.request);
    if (hit) return hit;
    throw error;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(url.pathname === PAGE ? pageFirstFromNetwork(request) : elsewhereFromNetwork(request));
    return;
  }
  // The offline page's own calls (its worker, the engine, the runtime) as before: the cache when
  // it holds them (versioned by the cache's name), else the network; JSON calls (session,
  // uploads) are never cached.
  if (url.pathname.startsWith(PAGE)) {
    event.respondWith(caches.open(CACHE).then((cache) => cache.match(request)).then((hit) => hit || fetch(request)));
    return;
  }
  if (PRECACHED.has(url.pathname)) event.respondWith(keptFile(event));
  // Anything else of the site is not this worker's business: the browser fetches it itself.
});
