// Runs a Python program under Pyodide in Node, with the engine's wheel installed, and prints
// what it prints. Tests only (the site never needs Node):
//
//   node tests/engine/pyodide_runner.mjs RUNTIME_DIR WHEEL PROGRAM.py [--snapshot] [--stdlib ZIP]
//
// RUNTIME_DIR holds what scripts/fetch_pyodide.py fetched and laid out, loaded as the offline
// page's worker loads it (static/offline/engine-worker.mjs): its trimmed python_stdlib.zip
// (--stdlib names another, e.g. the upstream one, to list the modules the engine needs:
// docs/offline.md) and its lock file with no packages. With --snapshot the program runs in an
// interpreter restored from a memory snapshot taken after the offline worker module was
// imported, as the page starts after its first visit (the first visit starts cold).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const flag = (name) => { const i = args.indexOf(name); if (i < 0) return null; const [, value] = args.splice(i, 2); return value; };
const snapshotMode = args.includes("--snapshot");
if (snapshotMode) args.splice(args.indexOf("--snapshot"), 1);
const stdlib = flag("--stdlib");
const [runtimeDir, wheelPath, program] = args;
if (!program) {
  console.error("usage: pyodide_runner.mjs RUNTIME_DIR WHEEL PROGRAM.py [--snapshot] [--stdlib ZIP]");
  process.exit(2);
}
const { loadPyodide } = await import(pathToFileURL(path.join(runtimeDir, "pyodide.mjs")).href);
const options = {
  indexURL: runtimeDir + path.sep,
  stdLibURL: stdlib || path.join(runtimeDir, "python_stdlib.zip"),
  lockFileURL: path.join(runtimeDir, "lock.json"),
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
};
const wheel = new Uint8Array(fs.readFileSync(wheelPath));
const source = fs.readFileSync(program, "utf8");

function run(pyodide) {
  try {
    pyodide.runPython(source, { filename: program });
  } catch (error) {
    console.error(String(error));
    process.exit(1);
  }
}

const pyodide = await loadPyodide({ ...options, _makeSnapshot: snapshotMode });
pyodide.unpackArchive(wheel, "wheel");
if (!snapshotMode) {
  run(pyodide);
} else {
  pyodide.runPython("import games.offline.worker");
  const snapshot = pyodide.makeMemorySnapshot();
  const restored = await loadPyodide({ ...options, _loadSnapshot: snapshot });
  restored.unpackArchive(wheel, "wheel");
  run(restored);
}
