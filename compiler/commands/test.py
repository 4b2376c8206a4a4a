"""``fedgate test``: run policy test suites (a request and the decision it must get)."""

from __future__ import annotations

import argparse
import time
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

from compiler.commands.common import add_backend_argument, backend_name, load_policy_bundle
from compiler.compile.incremental import PROOFS_AFTER_REVIEWS
from compiler.output import Output, plural
from compiler.policies import BUNDLED
from webhook.bundle.load import BUNDLE_FILES, OPTIONAL_FILES, bundle_from_source, read_source
from webhook.bundle.model import Bundle
from webhook.errors import BundleError, Finding, UsageError
from webhook.suites import Case, CaseResult, find_suites, load_suite, run_case

NAME = "test"
HELP = "run policy test suites (tests.yaml: requests and their expected decisions)"
DESCRIPTION = """\
Run every tests.yaml under DIR (default: the policy bundle) against the bundle, as `kyverno
test` and `gator verify` do. A case names a request (an AdmissionReview file, or inline:
operation, user, object, oldObject) and what must come of it: allowed, the exact set of
violated rules, and message patterns. Exit 1 when any case fails.

A suite with `world: example` is written against the example world fedgate ships (its
clusters, tenants, writers and synced tree): it runs with the bundle's rules in that world, so
the shipped rules' suites stay meaningful once policies/ describes your own federation. A
suite without it (`world: own`) runs against the bundle as it is: write yours that way.

examples:
  fedgate test                          the suites of the bundle's rules
  fedgate test examples/requests        the example requests and their decisions
  fedgate test --junit report.xml       also write JUnit XML for CI
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "directory",
        nargs="?",
        type=Path,
        metavar="DIR",
        help="where the suites are (default: the --policies directory)",
    )
    parser.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML here")
    add_backend_argument(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    bundle = load_policy_bundle(args)
    root = args.directory or args.policies
    if not root.exists():
        raise UsageError(f"{root}: no such file or directory")
    suites = find_suites(root)
    if not suites:
        raise UsageError(f"no tests.yaml under {root}")
    cases: list[Case] = []
    findings: list[Finding] = []
    for suite in suites:  # every malformed suite is reported, not just the first
        try:
            cases += load_suite(suite)
        except BundleError as exc:
            findings += exc.findings
    if findings:
        raise BundleError(findings)
    example = _example_world(args) if any(c.world == "example" for c in cases) else None
    started = time.perf_counter()
    results = [
        run_case(case, example if case.world == "example" and example else bundle) for case in cases
    ]
    elapsed = time.perf_counter() - started
    if args.junit:
        write_junit(args.junit, results, elapsed)
    failed = [r for r in results if not r.passed]
    if out.format == "json":
        out.json(
            {
                "ok": not failed,
                "passed": len(results) - len(failed),
                "failed": len(failed),
                "failures": [
                    {
                        "suite": r.case.suite,
                        "case": r.case.name,
                        "line": r.case.line,
                        "problems": list(r.problems),
                    }
                    for r in failed
                ],
            }
        )
    else:
        for result in failed:
            out.line(f"FAIL {result.case.suite}:{result.case.line}: {result.case.name}")
            for problem in result.problems:
                out.line(f"     {problem}")
        out.line(
            f"{plural(len(suites), 'suite')}: {len(results) - len(failed)} passed, "
            f"{len(failed)} failed ({elapsed:.2f} s)"
        )
    return 1 if failed else 0


def _example_world(args: argparse.Namespace) -> Bundle:
    """The bundle's rules in the example world fedgate ships: its clusters, tenants, writers,
    Argo CD and Karmada settings and the index of its synced tree, for the suites written
    against it (``world: example``)."""
    source = read_source(args.policies)
    shipped = read_source(BUNDLED)
    world = (*BUNDLE_FILES, *OPTIONAL_FILES)
    files = {name: text for name, text in source.files.items() if name not in world}
    files.update({name: text for name, text in shipped.files.items() if name in world})
    return bundle_from_source(
        replace(source, files=files, index=shipped.index),
        backend_name(args),
        proofs_after=PROOFS_AFTER_REVIEWS,
    )


def write_junit(path: Path, results: list[CaseResult], elapsed: float) -> None:
    suite = ET.Element(
        "testsuite",
        name="fedgate",
        tests=str(len(results)),
        failures=str(sum(not r.passed for r in results)),
        time=f"{elapsed:.3f}",
    )
    for result in results:
        case = ET.SubElement(suite, "testcase", classname=result.case.suite, name=result.case.name)
        if not result.passed:
            ET.SubElement(case, "failure", message=result.problems[0]).text = "\n".join(
                result.problems
            )
    ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)
