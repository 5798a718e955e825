"""Under CI=true, skips for a missing nutpie, Chromium or codexdata folder are failures."""

from pathlib import Path

import pytest

CONFTEST = Path(__file__).with_name("conftest.py")

INNER_TESTS = """
import sys

import pytest


def test_needs_nutpie(monkeypatch):
    monkeypatch.setitem(sys.modules, "nutpie", None)  # as if it were not installed
    pytest.importorskip("nutpie")


@pytest.mark.skipif(True, reason="Chromium is not installed")
def test_needs_chromium():
    pass


def test_needs_codexdata(codexdata_path):
    pass


def test_skips_for_another_reason():
    pytest.skip("nutpie's own compile is in use")


@pytest.mark.xfail(reason="Chromium is not installed", strict=True)
def test_expected_failure():
    raise AssertionError
"""


@pytest.fixture
def inner(pytester, monkeypatch):
    # The inner run's conftest is ours; its codexdata folder does not exist.
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    pytester.makepyfile(test_inner=INNER_TESTS)
    return pytester


@pytest.mark.parametrize("value", ["true", "True"])
def test_missing_dependencies_fail_under_ci(inner, monkeypatch, value):
    monkeypatch.setenv("CI", value)
    result = inner.runpytest("-rfEs", "-p", "no:cacheprovider")
    # A skip in the test body fails it; one in its setup (a skipif mark, a fixture) is an
    # error at setup. Both fail the run.
    result.assert_outcomes(failed=1, errors=2, skipped=1, xfailed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*nutpie is required under CI=true*",
            "*Chromium is required under CI=true*",
            "*the codexdata folder is required under CI=true*",
        ]
    )


@pytest.mark.parametrize("value", [None, "false", ""])
def test_missing_dependencies_skip_elsewhere(inner, monkeypatch, value):
    if value is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", value)
    result = inner.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(skipped=4, xfailed=1)


def test_a_module_level_skip_fails_under_ci(pytester, monkeypatch):
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    pytester.makepyfile(
        test_module="import sys\nimport pytest\nsys.modules['nutpie'] = None\n"
        "pytest.importorskip('nutpie')\n\ndef test_x():\n    pass\n"
    )
    monkeypatch.setenv("CI", "true")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    monkeypatch.delenv("CI")
    assert pytester.runpytest("-p", "no:cacheprovider").ret == pytest.ExitCode.NO_TESTS_COLLECTED
