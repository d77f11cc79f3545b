// Runs a Python program under Pyodide in Node, with the engine's wheel installed, and prints
// what it prints. Tests only (the site never needs Node):
//
//   node tests/offline/pyodide_runner.mjs RUNTIME_DIR WHEEL PROGRAM.py [STDLIB_ZIP]
//
// RUNTIME_DIR holds what scripts/fetch_pyodide.py fetched (pyodide.mjs and the rest); the
// standard library is that folder's trimmed python_stdlib.zip unless STDLIB_ZIP names another
// (the upstream one, to list the modules the engine needs: docs/offline.md).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [runtimeDir, wheel, program, stdlib] = process.argv.slice(2);
if (!program) {
  console.error("usage: pyodide_runner.mjs RUNTIME_DIR WHEEL PROGRAM.py [STDLIB_ZIP]");
  process.exit(2);
}
const { loadPyodide } = await import(pathToFileURL(path.join(runtimeDir, "pyodide.mjs")).href);
// The page passes the same: no package lock file, as the engine needs no package.
const lock = JSON.parse(fs.readFileSync(path.join(runtimeDir, "lock.json"), "utf8"));
const pyodide = await loadPyodide({
  indexURL: runtimeDir + path.sep,
  stdLibURL: stdlib || path.join(runtimeDir, "python_stdlib.zip"),
  lockFileContents: lock,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});
pyodide.unpackArchive(new Uint8Array(fs.readFileSync(wheel)), "wheel");
try {
  pyodide.runPython(fs.readFileSync(program, "utf8"), { filename: program });
} catch (error) {
  console.error(String(error));
  process.exit(1);
}
