"""Every file path and Python name that README.md and docs/*.md give exists in the tree.

A doc that names `games/core/pages.py` or `tables.do_sit` is read as a promise that the thing is
there; when code moves, this test lists each reference left behind, with its file and line.

What is checked, per backticked token (fenced code blocks are commands and output, not names):
- a path: a token with a "/" whose first part is a top-level entry of the repository
  (`games/engine/`, `static/js/table.js`; a template also as the code names it), or any other token with a "/" that ends in a file
  extension or a "/" (`stats/`, `offline/worker.py`), which must be the end of a real path;
  `tests/x.py::test_name` also needs the test function;
- a file name alone (`twins.py`, `_table.html`): some file of that name;
- a dotted name: `games.x.y`, `accounts.`, `setback_site.`, `benchmarks.`, `tests.` must resolve
  to a module and the names defined in it (read with ast, nothing is imported, so no Django
  setup); a short
  form whose first part is a module of the repo (`tables.do_sit`, `stats.rating.rate_match`) must
  resolve in at least one module of that name; `Class.attr` for a class of the repo
  (`Match.closes_at`) needs the attribute in the class's body or a related_name. A dotted token
  that is also a string in the code (a message type such as `table.changed`) counts as existing.

Not checked: URLs and URL paths (`/offline/`), tokens with spaces (shell commands, calls with
arguments), globs with `*`, placeholders (`<name>`, `...`), and runtime files that a checkout does
not hold (`var/...`, `staticfiles/`, `static/vendor/`, `db.sqlite3`): `make runtime` and the site
write those. Names outside the repo (`sys.version_info`, `AppConfig.ready()`) are not judged.
Paths written as plain text (from a top-level folder: `see docs/people.md`) and relative links are
checked too. docs/journal/ is not checked: a dated entry records the tree as it was that day.
"""

import ast
import functools
import importlib.util
import re
from pathlib import Path

THIS_FILE = Path(__file__).resolve()  # its examples of stale names are not the code's strings
ROOT = THIS_FILE.parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PACKAGES = ("games", "accounts", "setback_site", "benchmarks", "tests")
RUNTIME = ("var/", "staticfiles/", "static/vendor/", ".venv/", "db.sqlite3")
SKIPPED_DIRS = {".git", ".venv", "__pycache__", "node_modules", "var", "staticfiles", "vendor"}
SOURCE_SUFFIXES = {".py", ".js", ".mjs", ".html", ".txt"}
# A template is named as the code names it (`accounts/_coach_toggle.html`).
TEMPLATE_FOLDERS = (ROOT / "templates", ROOT / "templates" / "jinja2")
# Dotted tokens that are not Python names although their first part is a module's name.
NOT_PYTHON = {"discards.W"}  # a place inside an offline record, named in an error (rules-decisions)

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"`([^`]+)`")
# A file name alone is checked for the repo's own kinds of file: `record.json` or `pyodide.mjs`
# name files inside a download or a fetched runtime.
FILE_NAME = re.compile(r"^[\w.-]+\.(py|html|js|css|md|toml|sh)$")
CALL = re.compile(r"^([A-Za-z_][\w.]*)\(.*\)$")
DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")
EXTENSION = re.compile(r"\.[A-Za-z0-9]+$")
ROOTED_PATH = re.compile(r"(?<![\w/.@-])([a-z_]+/[\w/.-]*[\w/])")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_every_path_and_name_the_docs_give_exists():
    stale = [
        f"{doc.relative_to(ROOT)}:{line}: {shown} {why}"
        for doc in DOCS
        for line, shown, why in references(doc)
        if why
    ]
    assert not stale, f"{len(stale)} stale references in the docs:\n" + "\n".join(stale)


def references(doc: Path):
    """(line, reference as written, why it is stale or None) for each backticked token, each
    path written as plain text from a top-level folder (`see docs/people.md`) and each relative
    link, outside fenced blocks; and each import from the repo in a fenced python block."""
    body = prose(doc)
    for match in CODE_SPAN.finditer(body):
        token = match.group(1).strip()
        yield line_of(body, match), f"`{token}`", problem(token)
    plain = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), body)
    for match in ROOTED_PATH.finditer(plain):
        path = match.group(1)
        if path.split("/")[0] in top_level_folders() and not path.startswith(RUNTIME):
            why = None if (ROOT / path).exists() else "is not a path in the tree"
            yield line_of(body, match), path, why
    for match in LINK.finditer(plain):
        target = match.group(1).split("#")[0]
        if target and "://" not in target and not target.startswith("mailto:"):
            why = None if (doc.parent / target).exists() else "links to nothing in the tree"
            yield line_of(body, match), f"({target})", why
    for first_line, code in python_blocks(doc):
        for node in ast.walk(code):
            for name in imported_names(node):
                if name.split(".")[0] in PACKAGES:
                    yield first_line + node.lineno, f"import {name}", resolve(name.split("."))


def python_blocks(doc: Path):
    """(the line before its first, parsed code) for each fenced block marked python that parses."""
    lines = doc.read_text().splitlines()
    starts = [n for n, text in enumerate(lines) if FENCE.match(text)]
    for start, end in zip(starts[::2], starts[1::2], strict=False):
        if lines[start].strip().strip("`~").strip() == "python":
            try:
                yield start + 1, ast.parse("\n".join(lines[start + 1 : end]))
            except SyntaxError:
                continue  # a sketch, not code


def imported_names(node) -> list[str]:
    if isinstance(node, ast.ImportFrom) and node.module and not node.level:
        return [f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*"]
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    return []


def prose(doc: Path) -> str:
    """The doc with its fenced blocks blanked, lines kept in place."""
    in_fence = False
    lines = []
    for text in doc.read_text().splitlines():
        if FENCE.match(text):
            in_fence = not in_fence
            lines.append("")
        else:
            lines.append("" if in_fence else text)
    return "\n".join(lines)


def line_of(body: str, match: re.Match) -> int:
    return body.count("\n", 0, match.start()) + 1


@functools.cache
def top_level_folders() -> frozenset[str]:
    return frozenset(p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith("."))


def problem(token: str) -> str | None:
    """Why the token names nothing in the tree, or None when it does or is not judged."""
    if call := CALL.match(token):  # `services.do_act(match_id, ...)`: the name is checked
        token = call.group(1)
    if not token or re.search(r"\s|://|\*|<|>|\.\.\.|[{}\[\]\"'(]", token):
        return None
    if token.startswith(RUNTIME) or token.startswith(("/", "-", "~")):
        return None
    if "/" in token:
        return path_problem(token)
    if FILE_NAME.match(token):
        return None if token in file_names() else "names no file in the tree"
    if DOTTED.match(token) and token not in NOT_PYTHON:
        return dotted_problem(token)
    return None


def path_problem(token: str) -> str | None:
    path, _, test_name = token.partition("::")
    path = re.sub(r":\d+(-\d+)?$", "", path)
    first = path.split("/")[0]
    if (ROOT / first).exists():
        if not any((folder / path).exists() for folder in (ROOT, *TEMPLATE_FOLDERS)):
            return "is not a path in the tree"
    elif path.endswith("/") or EXTENSION.search(path):
        if not any(
            p == path.rstrip("/") or p.endswith("/" + path.rstrip("/")) for p in all_paths()
        ):
            return "is the end of no path in the tree"
    else:
        return None
    if test_name and test_name not in top_level_names(ROOT / path):
        return f"{path} has no {test_name}"
    return None


def dotted_problem(token: str) -> str | None:
    parts = token.split(".")
    if quoted_in_code(token):
        return None
    if parts[0] in PACKAGES:
        return resolve(parts)
    if targets := modules_called(parts[0]):
        results = [resolve([*target, *parts[1:]], instances=True) for target in targets]
        return None if None in results or outside_the_repo(parts[0]) else results[0]
    if parts[0] in classes() and len(parts) == 2:
        if any(parts[1] in class_members(path, parts[0]) for path in classes()[parts[0]]):
            return None
        if f'related_name="{parts[1]}"' in python_text():
            return None
        return f"{parts[0]} has no {parts[1]}"
    return None


def resolve(parts: list[str], instances: bool = False) -> str | None:
    """None when parts name a module of the repo and then names defined in it, in order; with
    instances, the first name may also be an attribute of an object of one of the module's
    classes (`deal.phase` for games.engine.deal.Deal)."""
    for split in range(len(parts), 0, -1):
        module = module_file(parts[:split])
        if module is None:
            continue
        rest = parts[split:]
        if not rest:
            return None
        if instances and rest[0] in instance_names(module):
            return None
        if rest[0] not in top_level_names(module):
            return f"{'.'.join(parts[:split])} has no {rest[0]}"
        if len(rest) > 1 and rest[1] not in members_of(module, rest[0]):
            return f"{rest[0]} has no {rest[1]}"
        return None
    return "is no module of the repo"


def outside_the_repo(name: str) -> bool:
    """True for a module that an import of that name alone finds outside the repo (`celery`)."""
    spec = importlib.util.find_spec(name)
    return bool(spec and spec.origin) and not any(
        ROOT / package in Path(spec.origin).parents for package in PACKAGES
    )


def module_file(parts: list[str]) -> Path | None:
    base = ROOT.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@functools.cache
def modules_called(name: str) -> list[list[str]]:
    """The dotted names of the repo's modules that the code calls name: their own name (`rating`
    for games.stats.rating) or an import alias (`tables` for games.tables.services)."""
    found = []
    for path in python_files():
        module = path.with_suffix("") if path.name != "__init__.py" else path.parent
        if module.name == name and module != ROOT / name:
            found.append(list(module.relative_to(ROOT).parts))
    for alias, target in import_aliases():
        if alias == name and target not in found and module_file(target):
            found.append(target)
    return found


@functools.cache
def import_aliases() -> tuple[tuple[str, list[str]], ...]:
    aliases = []
    for path in python_files():
        package = list(path.parent.relative_to(ROOT).parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                base += node.module.split(".") if node.module else []
                aliases += [(a.asname, [*base, a.name]) for a in node.names if a.asname]
            elif isinstance(node, ast.Import):
                aliases += [(a.asname, a.name.split(".")) for a in node.names if a.asname]
    return tuple(aliases)


@functools.cache
def top_level_names(path: Path) -> frozenset[str]:
    tree = ast.parse(path.read_text())
    names = set(defined_names(tree.body))
    if path.name == "__init__.py":
        names |= {p.stem for p in path.parent.glob("*.py")}
        names |= {p.name for p in path.parent.iterdir() if (p / "__init__.py").is_file()}
    return frozenset(names)


def defined_names(body):
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                yield from (n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            yield node.target.id
        elif isinstance(node, ast.Import | ast.ImportFrom):
            yield from ((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.If | ast.Try | ast.With):
            for block in ("body", "orelse", "finalbody"):
                yield from defined_names(getattr(node, block, []))
            for handler in getattr(node, "handlers", []):
                yield from defined_names(handler.body)


def members_of(module: Path, name: str) -> frozenset[str]:
    """What name, defined or imported in module, has: a class's members (read where the class is
    defined), or those of the class of an object made there (`hooks.after_change = Hook(...)`)."""
    kinds = [
        name,
        *(c.func.id for c in calls_assigned(module, name) if isinstance(c.func, ast.Name)),
    ]
    return frozenset().union(
        *(class_members(home, kind) for kind in kinds for home in classes().get(kind, [module]))
    )


def calls_assigned(module: Path, name: str) -> list[ast.Call]:
    return [
        node.value
        for node in ast.parse(module.read_text()).body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    ]


@functools.cache
def class_members(path: Path, class_name: str) -> frozenset[str]:
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            return frozenset(defined_names(node.body))
    return frozenset()


@functools.cache
def instance_names(path: Path) -> frozenset[str]:
    """What objects of the module's classes have: class-body names and self.name assignments."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ClassDef):
            names |= set(defined_names(node.body))
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            names.add(node.attr)
    return frozenset(names)


@functools.cache
def classes() -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    for path in python_files():
        for match in re.finditer(r"^\s*class (\w+)\b", path.read_text(), re.MULTILINE):
            found.setdefault(match.group(1), []).append(path)
    return found


def quoted_in_code(token: str) -> bool:
    return f'"{token}"' in source_text() or f"'{token}'" in source_text()


@functools.cache
def all_paths() -> tuple[str, ...]:
    paths = []
    for path in walk(ROOT):
        paths.append(path.relative_to(ROOT).as_posix())
    return tuple(paths)


@functools.cache
def file_names() -> frozenset[str]:
    return frozenset(Path(p).name for p in all_paths())


@functools.cache
def python_files() -> tuple[Path, ...]:
    return tuple(ROOT / p for p in all_paths() if p.endswith(".py") and p.split("/")[0] in PACKAGES)


@functools.cache
def python_text() -> str:
    return "\n".join(path.read_text() for path in python_files())


@functools.cache
def source_text() -> str:
    return "\n".join(
        (ROOT / p).read_text(errors="replace")
        for p in all_paths()
        if Path(p).suffix in SOURCE_SUFFIXES and (ROOT / p).is_file() and ROOT / p != THIS_FILE
    )


def walk(directory: Path):
    for path in sorted(directory.iterdir()):
        if path.name in SKIPPED_DIRS or path.name.endswith(".egg-info") or is_cache(path):
            continue
        yield path
        if path.is_dir():
            yield from walk(path)


def is_cache(path: Path) -> bool:
    """A tool's hidden folder (.pytest_cache, .hypothesis, ...): `.ci` is the repo's own."""
    return path.name.startswith(".") and path.is_dir() and path.name != ".ci"


def test_the_check_tells_a_stale_reference_from_a_real_one():
    real = [
        "tests/test_docs_references.py",
        "tests/test_docs_references.py::test_the_check_tells_a_stale_reference_from_a_real_one",
        "tests/",
        "test_docs_references.py",
        "tests.test_docs_references.problem",
        "games/engine/",
        "games.engine.rules.Rules.from_spec",
        "Rules.to_spec",
        "rules.describe()",
        "deal.legal_actions()",
        "engine.Rules",
        "hooks.after_change.register(function)",
    ]
    stale = [
        "tests/no_such_test.py",
        "tests/test_docs_references.py::test_nothing",
        "tests/nothing/",
        "no_such_file.py",
        "tests.test_docs_references.nothing",
        "tests.no_such_module",
        "games.engine.rules.Rules.no_such_method",
        "Rules.no_such_method",
        "rules.no_such_function",
        "hooks.after_change.no_such_method()",
    ]
    assert [token for token in real if problem(token)] == []
    assert [token for token in stale if not problem(token)] == []
