"""Records the Go oracle that tests/compiler/argocd/test_go_oracle.py holds the Python port to.

NEEDS GO (1.19 or newer) and two git mirrors; run by hand, never in CI:

    python tests/compiler/argocd/go_oracle/generate.py \\
        [--gobwas /work/.mirror/gobwas+glob/repo] [--argocd /work/.mirror/argoproj+argo-cd/repo]

It builds ``harness/`` (the command and a few stand-in packages, written for this harness) in a
temporary directory together with github.com/gobwas/glob v0.2.3 (``git archive`` of the gobwas
mirror) and Argo CD's functions copied verbatim from the argo-cd mirror at ``--argocd-rev``
(``IsSourcePermitted``, ``IsDestinationPermitted`` / ``isDestinationMatched``, ``globMatch``,
``IsGroupKindNamePermitted``, ``isResourceInList``, ``isNamedResourceInList``,
``NormalizeGitURL``, ``util/app/path.Path``, ``getPotentiallyValidManifests`` and what they
call); neither Go source is kept in this repository. Then it runs curated cases (one per known
quirk) and seeded random pools through the harness, keeps a varied subset (one or two cases per
kind of Go answer and compiled matcher tree) and writes them, with Go's answers, to
``tests/compiler/argocd/data/go_oracle.jsonl``: a header line naming the sources, then one case
per line. The same seed gives the same file.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "data" / "go_oracle.jsonl"
GOBWAS_TAG = "v0.2.3"  # the version argo-cd's go.mod requires
ARGOCD_REV = "37ee0097cf851bc2dd7665fc081bbce61a7e836e"  # argo-cd HEAD of 2026-08-22 (3.6 dev)

Case = dict[str, Any]

# ------------------------------------------------------------------ building the harness

PROJECT = "pkg/apis/application/v1alpha1/app_project_types.go"
TYPES = "pkg/apis/application/v1alpha1/types.go"
REPOSITORY = "reposerver/repository/repository.go"
GIT = "util/git/git.go"
APP_PATH = "util/app/path/path.go"
FILES = "util/io/files/util.go"

# package -> (its imports, [(file, first line of a declaration, keyword to put before a line
# taken out of a const or var block)])
EXTRACTS: dict[str, tuple[str, list[tuple[str, str, str]]]] = {
    "v1alpha1": (
        '"fmt"\n"path/filepath"\n"strings"\n"harness/metav1"\n"harness/schema"\n'
        '"harness/util/git"\n"harness/util/glob"',
        [
            (PROJECT, r"^func \(proj AppProject\) IsGroupKindNamePermitted\(", ""),
            (PROJECT, r"^func globMatch\(", ""),
            (PROJECT, r"^func \(proj AppProject\) IsSourcePermitted\(", ""),
            (PROJECT, r"^func \(proj AppProject\) IsDestinationPermitted\(", ""),
            (PROJECT, r"^func \(proj AppProject\) isDestinationMatched\(", ""),
            (PROJECT, r"^func isDenyPattern\(", ""),
            (TYPES, r"^func isResourceInList\(", ""),
            (TYPES, r"^func isNamedResourceInList\(", ""),
        ],
    ),
    "util/git": (
        '"net/url"\n"regexp"\n"strings"',
        [
            (GIT, r"^\s+sshURLRegex\s+=", "var "),
            (GIT, r"^func ensurePrefix\(", ""),
            (GIT, r"^func NormalizeGitURL\(", ""),
            (GIT, r"^func IsSSHURL\(", ""),
        ],
    ),
    "util/app/path": (
        '"errors"\n"fmt"\n"os"\n"path/filepath"\n"strings"',
        [
            (APP_PATH, r"^const ErrMessageAppPathDoesNotExist", ""),
            (APP_PATH, r"^var ErrAppPathDoesNotExist", ""),
            (APP_PATH, r"^func Path\(", ""),
        ],
    ),
    "util/io/files": (
        '"io/fs"\n"os"\n"path/filepath"\n"strings"',
        [(FILES, r"^func IsSymlink\(", ""), (FILES, r"^func Inbound\(", "")],
    ),
    "reposerver": (
        '"bytes"\n"errors"\n"fmt"\n"os"\n"path/filepath"\n"regexp"\n"strings"\n'
        '"harness/resource"\nlog "harness/logrus"\n"harness/util/glob"\n'
        '"harness/util/io/files"\n"harness/utfutil"',
        [
            (REPOSITORY, r"^\s+skipFileRenderingMarker\s+=", "const "),
            (REPOSITORY, r"^var ErrExceededMaxCombinedManifestFileSize", ""),
            (REPOSITORY, r"^var manifestFile =", ""),
            (REPOSITORY, r"^func getPotentiallyValidManifestFile\(", ""),
            (REPOSITORY, r"^type potentiallyValidManifest struct", ""),
            (REPOSITORY, r"^func getPotentiallyValidManifests\(", ""),
        ],
    ),
}


def _git_show(mirror: Path, rev: str, path: str) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(mirror), "show", f"{rev}:{path}"],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.splitlines()


def _declaration(lines: list[str], pattern: str, keyword: str) -> str:
    """The first line matching ``pattern`` (with ``keyword`` before it when it comes out of a
    const or var block), and when it opens a block, every line up to the block's ``}``."""
    start = next(i for i, line in enumerate(lines) if re.search(pattern, line))
    if not lines[start].rstrip().endswith("{"):
        return keyword + lines[start].strip()
    end = next(i for i in range(start, len(lines)) if lines[i] == "}")
    return "\n".join(lines[start : end + 1])


def extract_argocd(mirror: Path, rev: str, build: Path) -> None:
    """Argo CD's functions, verbatim, as Go packages of the harness module."""
    for package, (imports, wanted) in EXTRACTS.items():
        body = "\n\n".join(
            _declaration(_git_show(mirror, rev, path), regex, keyword)
            for path, regex, keyword in wanted
        )
        name = package.rsplit("/", 1)[-1]
        (build / package).mkdir(parents=True, exist_ok=True)
        (build / package / "zz_extracted.go").write_text(
            f"// Code copied verbatim from argoproj/argo-cd {rev} by generate.py.\n"
            f"package {name}\n\nimport (\n{imports}\n)\n\n{body}\n"
        )


def build_harness(gobwas: Path, argocd: Path, argocd_rev: str, build: Path) -> Path:
    shutil.copytree(HERE / "harness", build, dirs_exist_ok=True)
    archive = subprocess.run(
        ["git", "-C", str(gobwas), "archive", GOBWAS_TAG], capture_output=True, check=True
    )
    (build / "gobwas").mkdir()
    subprocess.run(["tar", "-x", "-C", str(build / "gobwas")], input=archive.stdout, check=True)
    (build / "gobwas" / "go.mod").write_text("module github.com/gobwas/glob\n\ngo 1.19\n")
    (build / "go.mod").write_text(
        "module harness\n\ngo 1.19\n\nrequire github.com/gobwas/glob v0.2.3\n\n"
        "replace github.com/gobwas/glob => ./gobwas\n"
    )
    extract_argocd(argocd, argocd_rev, build)
    env = dict(os.environ, GOFLAGS="-mod=mod", GOPROXY="off", GOSUMDB="off")
    binary = build / "harness-bin"
    subprocess.run(
        ["go", "build", "-o", str(binary), "./cmd/harness"], cwd=build, check=True, env=env
    )
    return binary


def run_harness(binary: Path, cases: list[Case], scratch: Path) -> list[Case]:
    """Go's answer to each case, in order."""
    lines = "".join(json.dumps(dict(c, id=i)) + "\n" for i, c in enumerate(cases))
    env = dict(os.environ, HARNESS_TMP=str(scratch))
    out = subprocess.run(
        [str(binary)], input=lines, capture_output=True, text=True, check=True, env=env
    )
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert [a.pop("id") for a in answers] == list(range(len(cases)))
    return answers


# ------------------------------------------------------------------ curated cases, one per quirk


def _glob(pattern: str, text: str, separators: str = "") -> Case:
    return {"op": "glob", "p": pattern, "t": text, "sep": separators}


def _path(pattern: str, name: str) -> Case:
    return {"op": "path", "p": pattern, "t": name}


def _gm(pattern: str, value: str, *, negation: bool = True) -> Case:
    return {"op": "gm", "p": pattern, "t": value, "neg": negation, "sep": ""}


def _norm(url: str) -> Case:
    return {"op": "norm", "u": url}


def _src(repos: list[str], url: str) -> Case:
    return {"op": "src", "spec": {"sourceRepos": repos}, "u": url}


def _dest(items: list[dict[str, str]], name: str, server: str, namespace: str) -> Case:
    spec = {"destinations": items}
    return {"op": "dest", "spec": spec, "name": name, "server": server, "ns": namespace}


def _gk(spec: dict[str, Any], group: str, kind: str, name: str, *, namespaced: bool) -> Case:
    return {"op": "gk", "spec": spec, "g": group, "k": kind, "name": name, "namespaced": namespaced}


def _dir(files: list[str], path: str, include: str = "", exclude: str = "") -> Case:
    return {"op": "dir", "files": files, "path": path, "recurse": True} | {
        "include": include,
        "exclude": exclude,
    }


FEDGATE_REPO = "https://git.example.com/platform/federation.git"
CURATED: list[tuple[str, Case]] = [
    # gobwas: AnyOf.Len() keeps the length of the later alternatives when the first varies
    ("anyof-len-first-varies", _glob("?{*,a", " ")),
    ("anyof-len-team", _glob("{team-*,default}-ns", "team-a-ns")),
    ("anyof-len-prefix", _glob("/{*,", "/a")),
    ("anyof-len-files", _glob("{*.yaml,x.yml}", "a.yaml")),
    # gobwas: Row and BTree count runes but slice bytes
    ("row-bytes-single", _glob("?{", "é")),
    ("row-bytes-text", _glob("é{", "é")),
    ("row-bytes-prod", _glob("prod-?é", "prod-aé")),
    ("row-bytes-emoji", _glob("??", "😀")),
    # gobwas: {} and an unclosed { compile to Nothing, which Row and BTree mishandle
    ("nothing-braces", _glob("prod-{}", "prod-")),
    ("nothing-panic-row", _glob(" {", " ")),
    ("nothing-panic-dot", _glob(".{", ".")),
    ("nothing-star", _glob("*{", "")),
    ("nothing-trailing-comma", _glob("{a,}", "")),
    ("nothing-empty-alternatives", _glob("{,}", "")),
    # gobwas: a lone ? or [!..] decodes "" as RuneError and matches it
    ("empty-single", _glob("?", "")),
    ("empty-negated-list", _glob("[!a]", "")),
    ("empty-list", _glob("[a]", "")),
    ("empty-negated-range", _glob("[!a-c]", "")),
    ("empty-single-in-braces", _glob("{?", "")),
    # gobwas: P*S checks HasPrefix and HasSuffix only, which may overlap
    ("prefix-suffix-overlap", _glob("kube-*-system", "kube-system")),
    ("prefix-suffix-overlap-a", _glob("a*a", "a")),
    # gobwas: NUL is the lexer's end of input
    ("nul-ends-pattern", _glob("\x00", "")),
    ("nul-ends-pattern-after", _glob("a\x00b", "a")),
    ("nul-dropped-in-text", _glob("*{\x00", "")),
    # gobwas: reading U+FFFD is a lexer error, unless the pattern ended before it
    ("fffd-error", _glob("\ufffd", "\ufffd")),
    ("fffd-error-late", _glob("abc\ufffd", "abc")),
    ("fffd-after-nul", _glob("\x00\ufffd", "")),
    # gobwas: separators and negated lists glued into one "does not contain" needle
    ("every-separators", _glob("*?", ".", "/.")),
    ("every-negated-lists", _glob("[!ab][!ab]", "xa")),
    ("every-negated-lists-ba", _glob("[!ab][!ab]", "ba")),
    # gobwas: BTree never matches an empty value at the very end
    ("btree-stars-separator", _glob("***", "", "/")),
    # gobwas: non-ASCII separators (util/strings answers the first place, or panics)
    ("separator-non-ascii", _glob("*é", "aéé", "é")),
    ("separator-suffix-any", _glob("{*a,b}", "éa", "é")),
    # gobwas's README examples
    ("readme-any", _glob("*.github.com", "api.github.com", ".")),
    ("readme-super", _glob("api.**.com", "api.github.com", ".")),
    ("readme-alternatives", _glob("{a,b}c", "bc")),
    # filepath.Match
    ("path-reversed-negated", _path("[^b-a]", "/")),
    ("path-reversed", _path("[b-a]", "b")),
    ("path-reversed-kind", _path("[^z-a]", "Deployment")),
    ("path-star-bytes", _path("*[^é]", "é")),
    ("path-unclosed", _path("a[", "a")),
    ("path-trailing-backslash", _path("a\\", "a")),
    ("path-escaped-bracket", _path("[\\]a]", "]")),
    ("path-error-after-mismatch", _path("x[", "a")),
    # globMatch
    ("gm-bare-bang", _gm("!", "")),
    ("gm-deny-star", _gm("!*", "x")),
    ("gm-star-empty", _gm("*", "")),
    ("gm-bang-literal", _gm("!foo", "!foo", negation=False)),
    ("gm-deny-panics", _gm("!.{", ".")),
    # NormalizeGitURL
    ("norm-scp", _norm("git@github.com:Org/Repo.git")),
    ("norm-git-ssh", _norm("git+ssh://git@github.com/Org/Repo.git")),
    ("norm-braces", _norm("https://github.com/org/{a,b}-*")),
    ("norm-space", _norm("https://github.com/org/repo with space")),
    ("norm-bad-escape", _norm("https://github.com/org/%zz")),
    ("norm-bad-port", _norm("https://host:abc/org/repo")),
    ("norm-user-at", _norm("a@b@c:org/repo")),
    ("norm-fragment", _norm("https://h/r#frag ment")),
    ("norm-star", _norm("*")),
    ("norm-colon-first-segment", _norm("a:b")),
    ("norm-go-space", _norm("\u3000https://github.com/org/repo\x85")),
    ("norm-python-only-space", _norm("\x1chttps://github.com/org/repo")),
    ("norm-sigma", _norm("https://h/ΑΣ")),
    ("norm-dotted-i", _norm("https://h/İ")),
    ("norm-fedgate", _norm(FEDGATE_REPO)),
    # IsSourcePermitted
    ("src-alternatives", _src(["https://github.com/org/{a,b}"], "https://github.com/org/a")),
    (
        "src-deny",
        _src(
            ["*", "!https://github.com/org/{secret,private}-*"], "https://github.com/org/secret-x"
        ),
    ),
    ("src-space", _src(["https://github.com/org/*"], "https://github.com/org/repo with space")),
    ("src-non-ascii", _src(["https://gitlab.com/é*"], "https://gitlab.com/éq")),
    ("src-git-ssh", _src(["git+ssh://git@github.com/org/*"], "git+ssh://git@github.com/org/x")),
    ("src-scp-vs-https", _src(["git@github.com:org/repo.git"], "https://github.com/org/repo")),
    ("src-panics", _src(["?{"], "*")),
    ("src-fedgate", _src([FEDGATE_REPO], FEDGATE_REPO)),
    # isDestinationMatched
    (
        "dest-overlap",
        _dest([{"server": "*", "namespace": "kube-*-system"}], "", "https://x", "kube-system"),
    ),
    ("dest-empty-namespace", _dest([{"name": "!", "namespace": "?"}], "a", "", "")),
    (
        "dest-fedgate",
        _dest(
            [{"name": "karmada-apiserver", "namespace": "platform-demo"}],
            "karmada-apiserver",
            "",
            "platform-demo",
        ),
    ),
    (
        "dest-deny-namespace",
        _dest(
            [{"server": "*", "namespace": "*"}, {"server": "*", "namespace": "!kube-*"}],
            "",
            "https://kubernetes.default.svc",
            "kube-system",
        ),
    ),
    # IsGroupKindNamePermitted
    (
        "gk-reversed-range",
        _gk({"namespaceResourceBlacklist": [{"kind": "[^b-a]"}]}, "", "a", "", namespaced=True),
    ),
    (
        "gk-empty-cluster-whitelist",
        _gk({"clusterResourceWhitelist": []}, "", "Namespace", "x", namespaced=False),
    ),
    # directory selection
    ("dir-dotdot", _dir(["apps/x.yaml"], "base/../apps")),
    ("dir-absolute", _dir(["apps/x.yaml"], "/apps")),
    ("dir-escapes-root", _dir(["apps/x.yaml"], "../apps")),
    ("dir-newline-name", _dir([".yml\n", "x\n.yaml", "y.yaml"], "")),
    ("dir-include-crosses-slash", _dir(["a/b/x.yaml", "a/y.json"], "", include="*.yaml")),
    ("dir-exclude-nothing", _dir([".jsonnet"], "", exclude="*{")),
    ("dir-exclude-panics", _dir(["ab.yaml"], "", exclude="??.yaml{")),
]

# ------------------------------------------------------------------ seeded random pools

GLOB_ATOMS = [
    *"abcab./-!,xéЖ😀 ",
    *["*", "*", "**", "?", "?", "[", "]", "{", "}", "\\", "[a-c]", "[!a-c]", "[ab]", "[!ab]"],
    *["[!]", "[]", "[a-]", "[-a]", "[é-ж]", "[c-a]", "[/]", "[!/]", "{a,b}", "{,a}", "{a,}"],
    *["{a,ab}", "{*,a}", "{a,{b,c}}", "{a*,b?}", "{", "{a", "{a,b", "\\*", "\\?", "\\[", "\\{"],
    *["\\\\", "\\a", "\\,", "\\}", "{}", "{,}", "{é,}", "[!é]", "{*,é}", "{?,ab}", "[a-é]"],
]
RARE_ATOMS = ["\n", "\x00", "\ufffd", "\t", "%", "[\\]]", "[\\-]", "[!!]", "[a\\-c]", "\xa0"]
TEXT_CHARS = [*"abcab./-!,xéЖ😀 *?[]{}\\\n"]
SEPARATORS = ["", "", "", "/", "/", ".", "/.", ",", "é", "😀/"]


def glob_pattern(rng: random.Random, atoms: int) -> str:
    pick = [rng.choice(RARE_ATOMS if rng.random() < 0.03 else GLOB_ATOMS) for _ in range(atoms)]
    return "".join(pick)


def instantiate(rng: random.Random, pattern: str) -> str:
    """A text loosely derived from the pattern, so that many cases match."""
    out: list[str] = []
    escaped = False
    for char in pattern:
        if escaped:
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "*":
            out.extend(rng.choice(TEXT_CHARS[:15]) for _ in range(rng.randint(0, 3)))
        elif char == "?":
            out.append(rng.choice(TEXT_CHARS[:15]))
        elif char in "[{}],":
            out.extend(rng.choice("abc") for _ in range(rng.random() < 0.5))
        else:
            out.append(char)
    text = "".join(out)
    if text and rng.random() < 0.2:
        at = rng.randrange(len(text))
        text = text[:at] + rng.choice(TEXT_CHARS) + text[at + 1 :]
    return text


def text_for(rng: random.Random, pattern: str) -> str:
    if rng.random() < 0.6:
        return instantiate(rng, pattern)
    return "".join(rng.choice(TEXT_CHARS) for _ in range(rng.randint(0, 12)))


PATH_ATOMS = [
    *"abc./-é😀**?[]^\\",
    *["[a-c]", "[^a-c]", "[ab]", "[^ab]", "[]", "[^]", "[a-]", "[-a]", "[c-a]", "[^c-a]", "[/]"],
    *["[^/]", "[\\]]", "[\\-]", "[a\\-c]", "\\*", "\\[", "\\\\", "\\a", "[é-ж]", "[^é]", "[^a]"],
    "[\ufffd]",
]


def path_case(rng: random.Random) -> Case:
    pattern = "".join(rng.choice(PATH_ATOMS) for _ in range(rng.randint(0, 6)))
    if rng.random() < 0.5:
        name = instantiate(rng, pattern.replace("^", ""))
    else:
        name = "".join(rng.choice("abc./-é😀*?[]^\\\ufffd") for _ in range(rng.randint(0, 6)))
    return _path(pattern, name)


SCHEMES = ["https://", "https://", "http://", "ssh://", "", "", "git+ssh://", "file://", "HTTPS://"]
USERS = ["", "", "git@", "git@", "user@", "u:p@", "GIT@", "a@b@", "tok%40en@", "@", "x y@"]
HOSTS = [
    *["github.com", "GitHub.COM", "gitlab.example.org:8443", "host:22", "[::1]", "*.github.com"],
    *["{github,gitlab}.com", "git.é.com", "ho st", "*", "github.*", "host:", "host:abc"],
    *["h[ab]st", "github.com.", ""],
]
PATHS = [
    *["org/repo", "Org/Repo.git", "org/*", "org/**", "org/{a,b}", "org/re po", "org/repo.git/"],
    *["org/a?b", "org/%41", "org/%zz", "org/[ab]", "~user/repo", "org/repo#frag", "*", "org/é"],
    *["org/repo.git.git", "org//repo", "", "org/!x", "org/a\\*", "22/org/repo", "*/*"],
]
SUFFIXES = ["", "", "", ".git", ".GIT", "/", " ", "\t", ".git/"]


def git_url(rng: random.Random) -> str:
    if rng.random() < 0.05:
        return "".join(rng.choice([*TEXT_CHARS, ":", "@", "#", "%", "A"]) for _ in range(9))
    scheme, user, host = rng.choice(SCHEMES), rng.choice(USERS), rng.choice(HOSTS)
    separator = "/" if scheme or rng.random() < 0.3 else ":"
    url = f"{scheme}{user}{host}{separator}{rng.choice(PATHS)}{rng.choice(SUFFIXES)}"
    return " " + url if rng.random() < 0.1 else url


def repo_pattern(rng: random.Random, url: str) -> str:
    """A sourceRepos entry loosely derived from url."""
    roll = rng.random()
    if roll < 0.1:
        return "*"
    if roll < 0.25:
        return git_url(rng)
    pattern = url
    for _ in range(rng.randint(0, 2)):
        if not pattern:
            break
        at = rng.randrange(len(pattern))
        end = min(len(pattern), at + rng.randint(1, 6))
        glob = rng.choice(["*", "**", "?", "{a,b}", "[a-z]", "*/*", "{" + pattern[at:end] + ",z}"])
        pattern = pattern[:at] + glob + pattern[end:]
    if rng.random() < 0.3:
        pattern = pattern.upper()
    return pattern


def maybe_deny(rng: random.Random, pattern: str, chance: float) -> str:
    return "!" + pattern if rng.random() < chance else pattern


NAMES = [
    *["", "", "*", "in-cluster", "prod-*", "prod-east", "{a,b}", "a", "*-east", "?"],
    *["[a-z]*", "prod-[!w]*", "{prod,stage}-*", "**", "[", "\\*", "é", " {"],
]
SERVERS = [
    *["", "", "*", "https://kubernetes.default.svc", "https://*.example.com", "https://*"],
    *["https://a.example.com", "https://a.example.com:6443", "https://{a,b}.example.com", "["],
]
NAMESPACES = [
    *["", "", "*", "default", "kube-system", "kube-*", "prod", "prod-*", "{a,b}", "a", "?"],
    *["[a-z]*", "[", "*-system", "\\*", "!", "kube-*-system", "{"],
]
CLUSTER_NAMES = ["", "in-cluster", "prod-east", "prod-west", "a", "b", "stage-east", "*", "é"]
CLUSTER_SERVERS = ["", "https://kubernetes.default.svc", "https://a.example.com", "https://x.y/z"]
DEST_NAMESPACES = ["", "default", "kube-system", "prod", "prod-a", "a", "b", "x-system", "!"]


def dest_case(rng: random.Random) -> Case:
    items = []
    for _ in range(rng.randint(1, 3)):
        item = {}
        for key, values, chance in (("name", NAMES, 0.8), ("server", SERVERS, 0.8)):
            if rng.random() < chance:
                item[key] = maybe_deny(rng, rng.choice(values), 0.25)
        if rng.random() < 0.9:
            item["namespace"] = maybe_deny(rng, rng.choice(NAMESPACES), 0.25)
        items.append(item)
    name, server = rng.choice(CLUSTER_NAMES), rng.choice(CLUSTER_SERVERS)
    return _dest(items, name, server, rng.choice(DEST_NAMESPACES))


GK_PATTERNS = [
    *["", "*", "*", "apps", "*.k8s.io", "rbac.authorization.k8s.io", "[a-z]*", "Deploy*"],
    *["Deployment", "[", "\\", "Config?ap", "[^C]*", "[z-a]", "[^z-a]", "ClusterRole", "?"],
    *["Namespace", "*Role*", "[A-Z]*", "networking.k8s.io", "*.io", "[]", "\\*", "[^a]*", "é*"],
]
GROUPS = ["", "", "apps", "rbac.authorization.k8s.io", "networking.k8s.io", "x.io", "é"]
KINDS = ["Deployment", "ConfigMap", "ClusterRole", "Namespace", "Role", "é", "*", "[a]"]
RESOURCE_NAMES = ["", "admin", "x", "kube-root", "a/b", "é"]
GK_LISTS = [
    ("namespaceResourceWhitelist", False),
    ("namespaceResourceBlacklist", False),
    ("clusterResourceWhitelist", True),
    ("clusterResourceBlacklist", True),
]


def gk_list(rng: random.Random, named: bool) -> list[dict[str, str]] | None:
    roll = rng.random()
    if roll < 0.3:
        return None if roll < 0.2 else []
    entries = []
    for _ in range(rng.randint(1, 3)):
        group = rng.choice(GROUPS if rng.random() < 0.3 else GK_PATTERNS)
        entry = {"group": group, "kind": rng.choice(KINDS if rng.random() < 0.3 else GK_PATTERNS)}
        if named and rng.random() < 0.5:
            entry["name"] = rng.choice(GK_PATTERNS + RESOURCE_NAMES)
        entries.append(entry)
    return entries


def gk_case(rng: random.Random) -> Case:
    spec: dict[str, Any] = {}
    for key, named in GK_LISTS:
        entries = gk_list(rng, named)
        if entries is not None or rng.random() < 0.5:
            spec[key] = entries
    group, kind, name = rng.choice(GROUPS), rng.choice(KINDS), rng.choice(RESOURCE_NAMES)
    return _gk(spec, group, kind, name, namespaced=rng.random() < 0.5)


DIR_SEGMENTS = ["a", "b", "apps", ".hidden", "base", "c d", "é", "x"]
FILE_NAMES = [
    *["x.yaml", "x.yml", "x.json", "x.jsonnet", "x.txt", "x.YAML", ".yaml", "x.yaml.bak", "yaml"],
    *["kustomization.yaml", "y.yaml", "a.b.json", "x.yaml ", "x.jsonnet.json", "x\n.yaml"],
    *["x.yaml\n", "é.yml", "*.yaml", "[a].yaml"],
]
SOURCE_PATHS = [
    *[".", "", "/", "apps", "apps/", "./apps", "/apps", "apps/../a", "..", "a/b", "apps/./x"],
    *["a", "a/", "b", "apps/x", "x/..", "./", "a//b", "apps/..", "../a"],
]
INCLUDES = [
    *["", "", "", "*.yaml", "**/*.yaml", "*/x.yaml", "{x.yaml,*.json}", "x.*", "b/*", "*", "["],
    *["a/**", "**.json", "*.{yaml,yml}", "*/*", "?.yaml", "[!x]*", "x/*.yaml", "{b,x}/**", "**"],
    *[".hidden/*", "*.yml", "x.yaml", "*/", "\\*.yaml", "{*.yaml", " {"],
]


def dir_case(rng: random.Random) -> Case:
    files = set()
    for _ in range(rng.randint(1, 5)):
        depth = rng.choice([0, 1, 1, 2, 2, 3])
        segments = [rng.choice(DIR_SEGMENTS) for _ in range(depth)]
        files.add("/".join([*segments, rng.choice(FILE_NAMES)]))
    directories = {"/".join(f.split("/")[:i]) for f in files for i in range(1, f.count("/") + 1)}
    include, exclude = rng.choice(INCLUDES), rng.choice(INCLUDES)
    if rng.random() < 0.15:
        include = glob_pattern(rng, 4)
    return {
        "op": "dir",
        "files": sorted(files - directories),
        "path": rng.choice(SOURCE_PATHS),
        "recurse": rng.random() < 0.6,
        "include": include,
        "exclude": exclude,
    }


def glob_case(rng: random.Random) -> Case:
    pattern = glob_pattern(rng, rng.randint(0, 10))
    return _glob(pattern, text_for(rng, pattern), rng.choice(SEPARATORS))


def gm_case(rng: random.Random) -> Case:
    pattern = maybe_deny(rng, glob_pattern(rng, rng.randint(0, 7)), 0.4)
    if rng.random() < 0.1:
        pattern = rng.choice(["*", "!*", "!", "", "!!a", "!{a,b}"])
    case = _gm(pattern, text_for(rng, pattern.lstrip("!")), negation=rng.random() < 0.7)
    return case | {"sep": rng.choice(SEPARATORS)}


def src_case(rng: random.Random) -> Case:
    url = git_url(rng)
    repos = [maybe_deny(rng, repo_pattern(rng, url), 0.25) for _ in range(rng.randint(1, 3))]
    return _src(repos, url)


# op -> (a random case, pool size, how many to keep)
POOLS: dict[str, tuple[Callable[[random.Random], Case], int, int]] = {
    "glob": (glob_case, 60_000, 1600),
    "path": (path_case, 20_000, 500),
    "gm": (gm_case, 20_000, 500),
    "norm": (lambda rng: _norm(git_url(rng)), 20_000, 700),
    "src": (src_case, 20_000, 500),
    "dest": (dest_case, 20_000, 400),
    "gk": (gk_case, 20_000, 300),
    "dir": (dir_case, 4_000, 300),
}

# ------------------------------------------------------------------ choosing a varied subset


def _tree_shape(tree: str) -> str:
    """The kinds of matchers in a compiled tree, without their texts."""
    return " ".join(re.findall(r"<(btree|row|any_of|every_of|[a-z_]+?)(?=[:_>])", tree))


def _kind_of_answer(case: Case, answer: Case) -> str:
    if "panic" in answer:
        return "panic:" + answer["panic"]
    if case["op"] == "glob":
        shape = _tree_shape(answer.get("tree", ""))
        return f"err={bool(answer.get('err'))} m={answer.get('m')} {shape}"
    if case["op"] == "norm":
        return f"empty={answer['s'] == ''} changed={answer['s'] != case['u']}"
    if case["op"] == "dir":
        return f"selected={len(answer.get('sel') or [])} refused={'err' in answer}"
    if case["op"] == "path":
        return f"m={answer['m']} err={'err' in answer}"
    return f"m={answer['m']}"


def varied(pool: list[Case], answers: list[Case], keep: int) -> list[tuple[Case, Case]]:
    """Up to two cases of each kind of answer (in pool order), then the first others."""
    chosen: list[int] = []
    seen: dict[str, int] = {}
    for index, (case, answer) in enumerate(zip(pool, answers, strict=True)):
        kind = _kind_of_answer(case, answer)
        if seen.get(kind, 0) < 2:
            seen[kind] = seen.get(kind, 0) + 1
            chosen.append(index)
    taken = set(chosen)
    others = [i for i in range(len(pool)) if i not in taken]
    chosen = chosen[:keep] + others[: max(0, keep - len(chosen))]
    return [(pool[i], answers[i]) for i in sorted(chosen)]


def _record(case: Case, answer: Case, case_id: str | None) -> str:
    if "err" in answer and case["op"] != "dir":
        answer["err"] = True  # only whether Go failed matters (dir keeps Argo CD's reason)
    record = {"id": case_id} if case_id else {}
    return json.dumps(record | case | {"go": answer}, ensure_ascii=False, separators=(",", ":"))


def _with_trees(binary: Path, cases: list[Case], answers: list[Case], scratch: Path) -> None:
    """Adds Go's String() of the compiled matcher to each glob answer."""
    globs = [i for i, case in enumerate(cases) if case["op"] == "glob"]
    explained = run_harness(binary, [cases[i] | {"op": "explain"} for i in globs], scratch)
    for i, tree in zip(globs, explained, strict=True):
        if "s" in tree:
            answers[i]["tree"] = tree["s"]
        elif "panic" in tree:
            answers[i]["compile_panic"] = tree["panic"]


def generate(binary: Path, seed: int, scratch: Path) -> Iterable[str]:
    curated = [case for _, case in CURATED]
    answers = run_harness(binary, curated, scratch)
    _with_trees(binary, curated, answers, scratch)
    for (case_id, case), answer in zip(CURATED, answers, strict=True):
        yield _record(case, answer, case_id)
    for op, (make, size, keep) in POOLS.items():
        rng = random.Random(f"{seed}:{op}")
        pool = [make(rng) for _ in range(size)]
        pool_answers = run_harness(binary, pool, scratch)
        if op == "glob":
            _with_trees(binary, pool, pool_answers, scratch)
        for case, answer in varied(pool, pool_answers, keep):
            yield _record(case, answer, None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gobwas", type=Path, default=Path("/work/.mirror/gobwas+glob/repo"))
    parser.add_argument("--argocd", type=Path, default=Path("/work/.mirror/argoproj+argo-cd/repo"))
    parser.add_argument("--argocd-rev", default=ARGOCD_REV)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="go-oracle-") as temporary:
        build, scratch = Path(temporary) / "build", Path(temporary) / "files"
        scratch.mkdir()
        binary = build_harness(args.gobwas, args.argocd, args.argocd_rev, build)
        go_version = subprocess.run(
            ["go", "version"], capture_output=True, text=True, check=True
        ).stdout
        gobwas_commit = subprocess.run(
            ["git", "-C", str(args.gobwas), "rev-parse", GOBWAS_TAG + "^{commit}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        header = {
            "oracle": "answers of the Go code to each case (go), recorded by generate.py",
            "generator": "tests/compiler/argocd/go_oracle/generate.py",
            "gobwas/glob": f"{GOBWAS_TAG} {gobwas_commit}",
            "argo-cd": args.argocd_rev,
            "go": go_version.strip(),
            "seed": args.seed,
        }
        lines = [json.dumps(header), *generate(binary, args.seed, scratch)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines) - 1} cases, {args.out.stat().st_size} bytes, to {args.out}")


if __name__ == "__main__":
    main()
