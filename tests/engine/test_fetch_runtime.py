"""scripts/fetch_pyodide.py: the runtime is taken only as pinned, a run with everything in place
changes nothing, and a wrong or missing file is a clear error naming it. Run on a small tarball
made here (the real one is 6 MB), pinned the same way."""

import base64
import hashlib
import importlib.util
import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fetch_pyodide.py"


def load_script():
    spec = importlib.util.spec_from_file_location("fetch_pyodide", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stdlib_zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name in ("json/__init__.py", "json/decoder.py", "random.py", "tkinter/__init__.py"):
            archive.writestr(name, f"# {name}\n")
    return out.getvalue()


def make_tarball(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


UPSTREAM = {
    "pyodide.mjs": b"export const loadPyodide = 1;\n",
    "pyodide.asm.mjs": b"// the runtime\n",
    "pyodide.asm.wasm": b"\0asm" + bytes(100),
    "python_stdlib.zip": stdlib_zip(),
    "pyodide-lock.json": json.dumps({"info": {"python": "3.14.2"}, "packages": {"x": {}}}).encode(),
}


@pytest.fixture
def fetch(tmp_path, monkeypatch):
    """The script, working in a tree of its own with the small tarball pinned."""
    module = load_script()
    tarball = make_tarball(UPSTREAM)
    given = tmp_path / "pyodide-9.9.9.tgz"
    given.write_bytes(tarball)
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    pins = {
        "version": "9.9.9",
        "tarball": "https://registry.invalid/pyodide-9.9.9.tgz",
        "integrity": integrity,
        "files": {name: hashlib.sha256(data).hexdigest() for name, data in UPSTREAM.items()},
    }
    (tmp_path / "runtime.json").write_text(json.dumps(pins))
    (tmp_path / "modules.txt").write_text("# comment\njson\njson.decoder\nrandom\n")
    monkeypatch.setattr(module, "ROOT", tmp_path)
    monkeypatch.setattr(module, "PINS_FILE", tmp_path / "runtime.json")
    monkeypatch.setattr(module, "MODULES_FILE", tmp_path / "modules.txt")
    monkeypatch.setattr(module, "CACHE_DIR", tmp_path / "cache")
    monkeypatch.setenv("PYODIDE_TARBALL", str(given))
    module.folder = tmp_path / "static" / "vendor" / "pyodide" / "9.9.9"
    module.given = given
    return module


def test_the_runtime_is_laid_out_trimmed_and_compressed_then_left_alone(fetch, capsys):
    assert fetch.main([]) == 0
    folder = fetch.folder
    assert (folder / "pyodide.asm.wasm").read_bytes() == UPSTREAM["pyodide.asm.wasm"]
    kept = zipfile.ZipFile(folder / "python_stdlib.zip").namelist()
    assert "json/decoder.py" in kept and "random.py" in kept and "tkinter/__init__.py" not in kept
    assert json.loads((folder / "lock.json").read_text())["packages"] == {}
    assert (folder / "pyodide.asm.wasm.gz").exists()
    stamp = (folder / "MANIFEST.json").stat().st_mtime_ns
    capsys.readouterr()
    assert fetch.main([]) == 0 and fetch.main(["--check"]) == 0
    assert (folder / "MANIFEST.json").stat().st_mtime_ns == stamp  # nothing fetched or written
    assert capsys.readouterr().err == ""


def test_a_changed_file_is_named_and_fetched_again(fetch, capsys):
    fetch.main([])
    (fetch.folder / "pyodide.asm.wasm").write_bytes(b"something else")
    assert fetch.main(["--check"]) == 1
    assert "pyodide.asm.wasm: sha256 is not the one expected" in capsys.readouterr().err
    assert fetch.main([]) == 0
    assert (fetch.folder / "pyodide.asm.wasm").read_bytes() == UPSTREAM["pyodide.asm.wasm"]


def test_a_file_that_is_not_the_pinned_one_is_refused_by_name(fetch, capsys):
    pins = json.loads(fetch.PINS_FILE.read_text())
    pins["files"]["pyodide.asm.wasm"] = "0" * 64
    fetch.PINS_FILE.write_text(json.dumps(pins))
    assert fetch.main([]) == 1
    assert "package/pyodide.asm.wasm: sha256" in capsys.readouterr().err
    assert not fetch.folder.exists()  # nothing half-written is ever served


def test_a_file_missing_from_the_tarball_is_named(fetch, capsys):
    fetch.given.write_bytes(make_tarball({k: v for k, v in UPSTREAM.items() if k != "pyodide.mjs"}))
    pins = json.loads(fetch.PINS_FILE.read_text())
    pins["integrity"] = (
        "sha512-" + base64.b64encode(hashlib.sha512(fetch.given.read_bytes()).digest()).decode()
    )
    fetch.PINS_FILE.write_text(json.dumps(pins))
    assert fetch.main([]) == 1
    assert "package/pyodide.mjs is missing from the tarball" in capsys.readouterr().err


def test_a_tarball_that_is_not_the_pinned_one_is_refused(fetch, capsys):
    fetch.given.write_bytes(make_tarball({**UPSTREAM, "pyodide.mjs": b"// changed\n"}))
    assert fetch.main([]) == 1
    err = capsys.readouterr().err
    assert "pyodide-9.9.9.tgz" in err and "is not the integrity pinned" in err
