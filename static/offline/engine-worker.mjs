// The offline page's engine: Pyodide (CPython in WebAssembly) in a module Web Worker, with the
// site's engine wheel installed. The page posts {id, call, args}; the worker answers {id, result}
// (JSON text from games/offline/worker.py) or {id, error}. Searches (bots, coach) take up to a
// second here, never on the page's thread.
//
// Starting Python and importing the engine takes 2-4 s; restoring a memory snapshot of an
// interpreter that has already imported it takes a fraction of that. The first start makes one
// and keeps it in this browser (Cache Storage, named by the runtime's version and the engine's
// hash, so a new engine never starts from an old snapshot); later starts, offline ones
// included, restore it. It holds no deal: the match is restored by the page afterwards.
const SNAPSHOTS = "setback-offline-snapshots";
let api = null;
let booting = null;

async function cachedSnapshot(key) {
  try {
    const hit = await (await caches.open(SNAPSHOTS)).match(key);
    return hit ? new Uint8Array(await hit.arrayBuffer()) : null;
  } catch (error) {
    return null; // no Cache Storage here: start the long way
  }
}

async function keepSnapshot(key, snapshot) {
  try {
    const cache = await caches.open(SNAPSHOTS);
    for (const old of await cache.keys()) if (old.url !== key) await cache.delete(old);
    await cache.put(key, new Response(snapshot, { headers: { "Content-Type": "application/octet-stream" } }));
  } catch (error) {
    // Out of room or no Cache Storage: the next start is a cold one, no more.
  }
}

async function boot(config) {
  const started = performance.now();
  const { loadPyodide } = await import(config.runtime + "pyodide.mjs");
  const options = {
    indexURL: config.runtime,
    stdLibURL: config.runtime + "python_stdlib.zip",
    // No packages: the engine is pure Python and needs only the standard library.
    lockFileURL: config.runtime + "lock.json",
    packageBaseUrl: config.runtime,
  };
  const key = new URL(config.runtime + "snapshot-" + config.engine, self.location.href).href;
  const wheel = fetch(config.wheel).then((response) => {
    if (!response.ok) throw new Error("the engine wheel could not be loaded (" + response.status + ")");
    return response.arrayBuffer();
  });
  let pyodide = null;
  let kind = "snapshot";
  const snapshot = await cachedSnapshot(key);
  if (snapshot) {
    try {
      pyodide = await loadPyodide({ ...options, _loadSnapshot: snapshot });
      pyodide.unpackArchive(await wheel, "wheel"); // the files too, for anything imported later
      pyodide.runPython("import games.offline.worker");
    } catch (error) {
      pyodide = null;
    }
  }
  if (!pyodide) {
    kind = "cold";
    pyodide = await loadPyodide({ ...options, _makeSnapshot: true });
    pyodide.unpackArchive(await wheel, "wheel");
    pyodide.runPython("import games.offline.worker");
    // Before any proxy of a Python object exists: the snapshot is of Python's memory alone.
    const made = pyodide.makeMemorySnapshot();
    setTimeout(() => keepSnapshot(key, made), 0);
  }
  api = pyodide.pyimport("games.offline.worker");
  return { kind, ms: Math.round(performance.now() - started) };
}

self.onmessage = async (event) => {
  const { id, call, args } = event.data;
  try {
    if (call === "boot") {
      booting = booting || boot(args[0]);
      self.postMessage({ id, result: await booting });
      return;
    }
    if (!api) await booting;
    const result = api[call](...(args || []));
    self.postMessage({ id, result });
  } catch (error) {
    self.postMessage({ id, error: String(error && error.message ? error.message : error) });
  }
};
