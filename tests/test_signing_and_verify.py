"""Keys, signatures and `memrecall verify`: fingerprint, every signature, a trusted key, and a replay."""

import json
import stat

import pytest
from conftest import FIXTURES, MINI_RELEASE, run

from memrecall.reports.proof.fingerprint import content_sha256, report_fingerprint
from memrecall.reports.proof.verification import Check, report_state, verify_report
from memrecall.reports.version import __version__

LME = FIXTURES / "lme_format_mini.json"
LOCOMO = FIXTURES / "locomo_mini.json"
STRATEGIES = "recency,hashing,fts5"


def ok(result):
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    """Two key pairs: alice (publishes) and mallory (anyone else)."""
    folder = tmp_path_factory.mktemp("keys")
    ok(run("keys", "new", "--out", folder, "--name", "alice"))
    ok(run("keys", "new", "--out", folder, "--name", "mallory"))
    return folder


@pytest.fixture(scope="module")
def baseline(tmp_path_factory, keys):
    """A baseline report signed by alice, with its exported rankings."""
    out = tmp_path_factory.mktemp("baseline")
    ok(
        run(
            "baseline",
            "--data",
            MINI_RELEASE,
            "--strategies",
            STRATEGIES,
            "--quiet",
            "--output",
            out / "b.json",
            "--export-rankings",
            out / "rk",
            "--sign-key",
            keys / "alice.key",
        )
    )
    return out


def read(path):
    return json.loads(path.read_text())


def key_id_of(keys, name):
    from memrecall.reports.proof.signing import key_id, load_public_key

    return key_id(load_public_key(keys / f"{name}.pub"))


def test_keys_new_writes_a_private_key_only_its_owner_reads_and_refuses_to_overwrite(keys):
    assert stat.S_IMODE((keys / "alice.key").stat().st_mode) == 0o600
    assert (keys / "alice.pub").read_text().startswith("-----BEGIN PUBLIC KEY-----")
    again = run("keys", "new", "--out", keys, "--name", "alice")
    assert again.exit_code == 1 and "already exists; keys are never overwritten" in again.output
    assert len(key_id_of(keys, "alice")) == 16 and key_id_of(keys, "alice") != key_id_of(keys, "mallory")


def test_sign_key_adds_a_signature_outside_the_content(baseline, keys):
    report = read(baseline / "b.json")
    (entry,) = report["signatures"]
    assert entry["key_id"] == key_id_of(keys, "alice")
    assert report["content_sha256"] == content_sha256(report["content"])
    assert "signature" not in report  # the fingerprint is no longer called a signature
    assert "signatures" not in report["content"]


def test_verify_round_trip_with_the_trusted_key_and_a_replay(baseline, keys):
    result = ok(
        run(
            "verify",
            baseline / "b.json",
            "--key",
            keys / "alice.pub",
            "--data",
            MINI_RELEASE,
            *(x for name in STRATEGIES.split(",") for x in ("--rankings", baseline / "rk" / f"{name}.jsonl")),
        )
    )
    lines = result.output.splitlines()
    alice = key_id_of(keys, "alice")
    assert [line.split(":")[0] for line in lines[:-1]] == [
        "ok fingerprint",
        f"ok signature {alice}",
        f"ok trusted key {alice}",
        "ok replay",
        *(f"code {name}" for name in STRATEGIES.split(",")),
    ]
    own = f"memrecall's own code, the system registered as recency in memrecall {__version__}"
    assert lines[4] == f"code recency: {own}"
    assert lines[-1].endswith(": replayed")


def test_rankings_given_in_another_order_are_matched_by_file_stem(baseline):
    files = [baseline / "rk" / f"{name}.jsonl" for name in reversed(STRATEGIES.split(","))]
    result = ok(
        run("verify", baseline / "b.json", "--data", MINI_RELEASE, *(x for f in files for x in ("--rankings", f)))
    )
    assert "ok replay" in result.output


def test_verify_without_keys_says_who_signed(baseline, keys):
    result = ok(run("verify", baseline / "b.json"))
    assert result.output.splitlines()[-1].endswith(f"signed by {key_id_of(keys, 'alice')}")


def test_a_hand_edited_report_with_a_recomputed_fingerprint_fails_verify_key(baseline, keys, tmp_path):
    report = read(baseline / "b.json")
    report["content"]["systems"]["hashing"]["results"]["overall"]["recall@3"]["value"] = 0.99
    report["content_sha256"] = content_sha256(report["content"])
    (tmp_path / "edited.json").write_text(json.dumps(report))
    result = run("verify", tmp_path / "edited.json", "--key", keys / "alice.pub")
    assert result.exit_code == 1
    assert "ok fingerprint" in result.output
    assert "FAIL signature" in result.output and "does not verify over the content's fingerprint" in result.output
    assert result.output.splitlines()[-1].endswith(": UNVERIFIED")


def test_an_edited_report_resigned_by_another_key_fails_only_the_trust_check(baseline, keys, tmp_path):
    report = read(baseline / "b.json")
    report["content"]["systems"]["hashing"]["results"]["overall"]["recall@3"]["value"] = 0.99
    report["content_sha256"] = content_sha256(report["content"])
    report["signatures"] = []
    (tmp_path / "forged.json").write_text(json.dumps(report))
    ok(run("keys", "sign", tmp_path / "forged.json", "--key", keys / "mallory.key"))
    mallory = key_id_of(keys, "mallory")
    assert ok(run("verify", tmp_path / "forged.json")).output.splitlines()[-1].endswith(f"signed by {mallory}")
    result = run("verify", tmp_path / "forged.json", "--key", keys / "alice.pub")
    assert result.exit_code == 1
    assert "FAIL trusted key: none of the signatures is by the 1 key(s) given" in result.output


def test_an_edited_number_without_a_new_fingerprint_fails_the_fingerprint_check(baseline, tmp_path):
    report = read(baseline / "b.json")
    report["content"]["systems"]["hashing"]["results"]["overall"]["recall@3"]["value"] = 0.99
    (tmp_path / "edited.json").write_text(json.dumps(report))
    result = run("verify", tmp_path / "edited.json")
    assert result.exit_code == 1
    assert result.output.splitlines()[0].startswith("FAIL fingerprint: recorded")
    assert len(result.output.splitlines()) == 2  # stops at the first failure, then the state


def test_an_altered_rankings_file_fails_the_replay_naming_what_changed(baseline, tmp_path):
    lines = (baseline / "rk" / "hashing.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["ranked_episode_ids"] = first["ranked_episode_ids"][::-1]
    altered = tmp_path / "hashing.jsonl"
    altered.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    files = [baseline / "rk" / "recency.jsonl", altered, baseline / "rk" / "fts5.jsonl"]
    result = run("verify", baseline / "b.json", "--data", MINI_RELEASE, *(x for f in files for x in ("--rankings", f)))
    assert result.exit_code == 1
    (replay,) = [line for line in result.output.splitlines() if "replay" in line]
    assert replay.startswith("FAIL replay: content.")
    assert "hashing" in replay and "in the report" in replay


def test_the_replay_refuses_other_data_and_the_wrong_number_of_files(baseline, tmp_path):
    rk = baseline / "rk" / "hashing.jsonl"
    one = run("verify", baseline / "b.json", "--rankings", rk, "--data", MINI_RELEASE)
    assert one.exit_code == 1 and "1 rankings file(s) for 3 system(s)" in one.output
    other = tmp_path / "other.json"
    other.write_text(MINI_RELEASE.read_text() + "\n")
    files = [baseline / "rk" / f"{name}.jsonl" for name in STRATEGIES.split(",")]
    wrong = run("verify", baseline / "b.json", "--data", other, *(x for f in files for x in ("--rankings", f)))
    assert wrong.exit_code == 1 and "but the report was made from data with sha256" in wrong.output


def test_several_signatures_all_verify_and_a_key_signing_twice_is_replaced(baseline, keys, tmp_path):
    target = tmp_path / "twice.json"
    ok(run("keys", "sign", baseline / "b.json", "--key", keys / "mallory.key", "--output", target))
    ok(run("keys", "sign", target, "--key", keys / "mallory.key"))
    report = read(target)
    assert [s["key_id"] for s in report["signatures"]] == [key_id_of(keys, "alice"), key_id_of(keys, "mallory")]
    assert report["content"] == read(baseline / "b.json")["content"]
    result = ok(run("verify", target, "--key", keys / "mallory.pub"))
    assert result.output.count("ok signature") == 2
    assert result.output.splitlines()[-1].endswith(f"signed by {key_id_of(keys, 'mallory')}")


def test_a_signature_with_a_swapped_public_key_is_refused(baseline, keys, tmp_path):
    from memrecall.reports.proof.signing import load_public_key, raw_public_bytes

    report = read(baseline / "b.json")
    report["signatures"][0]["public_key"] = raw_public_bytes(load_public_key(keys / "mallory.pub")).hex()
    checks = verify_report(report)
    assert checks[-1].ok is False and "is not the id of its public key" in checks[-1].detail


@pytest.mark.parametrize(
    "command",
    [
        ["baseline", "--data", MINI_RELEASE, "--strategies", "recency", "--quiet"],
        ["run", "epirec", "--system", "recency", "--data", MINI_RELEASE, "--quiet"],
        ["longmemeval", "--data", LME, "--modes", "fts5", "--quiet"],
        ["locomo", "--data", LOCOMO, "--modes", "fts5", "--quiet"],
    ],
    ids=["baseline", "run", "longmemeval", "locomo"],
)
@pytest.mark.parametrize("how", ["option", "environment"])
def test_every_command_that_runs_systems_signs_with_the_option_or_the_environment(
    command, how, keys, tmp_path, monkeypatch
):
    if how == "environment":
        monkeypatch.setenv("MEMRECALL_SIGN_KEY", str(keys / "alice.key"))
    extra = ["--sign-key", keys / "alice.key"] if how == "option" else []
    result = ok(run(*command, "--output", tmp_path / "r.json", *extra))
    assert f"signed by {key_id_of(keys, 'alice')}" in result.output
    assert ok(run("verify", tmp_path / "r.json", "--key", keys / "alice.pub")).output.count("ok ") == 3


def test_evaluate_and_both_compares_sign_and_evaluate_replays(baseline, keys, tmp_path):
    rk = baseline / "rk"
    alice = ["--sign-key", keys / "alice.key"]
    ok(run("evaluate", rk / "hashing.jsonl", "--data", MINI_RELEASE, "--output", tmp_path / "e.json", *alice))
    ok(
        run(
            "compare",
            rk / "fts5.jsonl",
            rk / "recency.jsonl",
            "--data",
            MINI_RELEASE,
            "--output",
            tmp_path / "c.json",
            *alice,
        )
    )
    ok(
        run(
            "compare",
            tmp_path / "e.json",
            tmp_path / "c.json",
            "--allow-mismatch",
            "--output",
            tmp_path / "cr.json",
            *alice,
        )
    )
    for name in ("e", "c", "cr"):
        assert read(tmp_path / f"{name}.json")["signatures"][0]["key_id"] == key_id_of(keys, "alice")
    replay = ok(run("verify", tmp_path / "e.json", "--rankings", rk / "hashing.jsonl", "--data", MINI_RELEASE))
    assert replay.output.splitlines()[-1].endswith(": replayed")
    pair = ok(
        run(
            "verify",
            tmp_path / "c.json",
            "--data",
            MINI_RELEASE,
            "--rankings",
            rk / "fts5.jsonl",
            "--rankings",
            rk / "recency.jsonl",
        )
    )
    assert pair.output.splitlines()[-1].endswith(": replayed")


@pytest.mark.parametrize("benchmark,data", [("longmemeval", LME), ("locomo", LOCOMO), ("locomo-turn", LOCOMO)])
def test_a_run_report_replays_from_its_exported_rankings_on_other_benchmarks(benchmark, data, tmp_path):
    ok(
        run(
            "run",
            benchmark,
            "--system",
            "fts5",
            "--data",
            data,
            "--quiet",
            "--output",
            tmp_path / "r.json",
            "--export-rankings",
            tmp_path / "rk.jsonl",
        )
    )
    needs_data = run("verify", tmp_path / "r.json", "--rankings", tmp_path / "rk.jsonl")
    assert needs_data.exit_code == 1 and f"--data is required to replay a {benchmark} report" in needs_data.output
    result = ok(run("verify", tmp_path / "r.json", "--rankings", tmp_path / "rk.jsonl", "--data", data))
    assert result.output.splitlines()[-1].endswith(": replayed")


def test_a_bad_key_file_is_a_usage_error_before_any_work(tmp_path):
    (tmp_path / "not-a-key").write_text("hello\n")
    result = run(
        "baseline",
        "--data",
        MINI_RELEASE,
        "--quiet",
        "--output",
        tmp_path / "r.json",
        "--sign-key",
        tmp_path / "not-a-key",
    )
    assert result.exit_code == 2 and "not an unencrypted PEM private key" in result.output
    assert not (tmp_path / "r.json").exists()
    bad_pub = run("verify", MINI_RELEASE, "--key", tmp_path / "not-a-key")
    assert bad_pub.exit_code == 1 and "not a PEM public key" in bad_pub.output


def test_old_reports_keep_reading_through_the_legacy_signature_key(baseline):
    report = read(baseline / "b.json")
    legacy = {"content": report["content"], "env": report["env"], "signature": report["content_sha256"]}
    assert report_fingerprint(legacy) == report["content_sha256"]
    assert report_state(legacy, verify_report(legacy)) == "fingerprint only"


@pytest.mark.parametrize(
    "checks,state",
    [
        ([Check("fingerprint", True, ""), Check("signatures", True, "")], "fingerprint only"),
        (
            [Check("fingerprint", True, ""), Check("signature a1", True, ""), Check("signature b2", True, "")],
            "signed by a1, b2",
        ),
        (
            [
                Check("fingerprint", True, ""),
                Check("signature a1", True, ""),
                Check("signature b2", True, ""),
                Check("trusted key b2", True, ""),
            ],
            "signed by b2",
        ),
        ([Check("fingerprint", True, ""), Check("signatures", True, ""), Check("replay", True, "")], "replayed"),
        ([Check("fingerprint", True, ""), Check("replay", False, "")], "UNVERIFIED"),
        ([Check("fingerprint", False, "")], "UNVERIFIED"),
        ([], "UNVERIFIED"),
    ],
)
def test_report_state_is_exactly_one_of_the_four(checks, state):
    assert report_state({}, checks) == state


def test_a_file_that_is_not_a_report_fails_the_first_check():
    (check,) = verify_report({"hello": 1})
    assert (check.name, check.ok) == ("report", False)


@pytest.mark.parametrize(
    "signatures,expected",
    [
        ({"key_id": "x"}, "`signatures` is not a list"),
        (["not an object"], "not a {key_id, public_key, signature} object"),
        (
            [{"key_id": "x", "public_key": "zz", "signature": "00"}],
            "public_key or signature is not hex of the right length",
        ),
    ],
)
def test_malformed_signature_lists_and_entries_fail_their_check(baseline, signatures, expected):
    report = {**read(baseline / "b.json"), "signatures": signatures}
    checks = verify_report(report)
    assert [c.ok for c in checks] == [True, False] and checks[-1].detail == expected
    assert report_state(report, checks) == "UNVERIFIED"


def _not_a_key_file(tmp_path, kind):
    """A path that is a FIFO with no writer, a folder, or nothing at all."""
    import os

    path = tmp_path / f"key-{kind}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    return path


@pytest.mark.parametrize("kind", ["fifo", "folder", "missing"])
def test_a_key_path_that_is_no_regular_file_is_one_line_and_never_blocks(tmp_path, kind):
    bad = _not_a_key_file(tmp_path, kind)
    signed = run("baseline", "--data", MINI_RELEASE, "--quiet", "--output", tmp_path / "r.json", "--sign-key", bad)
    assert signed.exit_code in (1, 2) and "Traceback" not in signed.output
    assert str(bad.name) in signed.output and not (tmp_path / "r.json").exists()
    checked = run("verify", MINI_RELEASE, "--key", bad)
    assert checked.exit_code in (1, 2) and "Traceback" not in checked.output and str(bad.name) in checked.output
    if kind == "fifo":
        assert "not a regular file" in signed.output and "not a regular file" in checked.output
