"""The judge compares facts, not words: the issue's equivalences hold, values are whole
tokens of one quantity, and a value or a rule that comes back different is *changed*."""

from __future__ import annotations

import subprocess
import sys

import pytest

from supervisor.recognize.judge.dropped import dropped_not_pinned
from supervisor.recognize.judge.matching import same
from supervisor.recognize.judge.restatement import judge_restatement
from supervisor.recognize.judge.specifics import extract
from supervisor.recognize.judge.text import prepare
from supervisor.recognize.judge.verdict import judge, judge_all
from tests.locations import REPO


def the_specific(text: str):
    (found,) = [s for s in extract(prepare(text)) if s.kind not in ("name",)]
    return found


@pytest.mark.parametrize(
    "spellings",
    [
        ["15 minute", "15-minute", "15 minutes", "15m", "fifteen-minute", "a quarter of an hour"],
        ["200 ms", "200 milliseconds", "0.2 s"],
        ["2,000", "2k", "two thousand"],
        ["PostgreSQL 16", "Postgres 16", "PG16"],
        ["periodSeconds: 5", "every 5 seconds"],
        ["max-age=60", "60 s"],
        ["30 June 2025", "2025-06-30"],
        ["14:00 UTC", "2 PM UTC"],
        ["10%", "a tenth"],
        ["max-age=600", "10 minutes"],
    ],
)
def test_the_issue_notations_of_one_value_are_the_same(spellings: list[str]) -> None:
    first = the_specific(spellings[0])
    for other in spellings[1:]:
        assert same(first, the_specific(other)), (spellings[0], other)


def test_inflections_are_one_word() -> None:
    pin = "Skip the flaky checkout_spec.ts test in CI."
    for said in ("CI is skipping checkout_spec.ts.", "checkout_spec.ts skipped in CI."):
        assert judge(pin, said).status == "kept"


def test_a_number_matches_only_as_a_whole_token_of_the_same_quantity() -> None:
    assert judge("Retry at most 3 times.", "p99 latency is 3.9 s.").missing == ("3",)
    verdict = judge("Cap the worker at 2 GiB of memory.", "The worker is capped at 4 GiB.")
    assert verdict.status == "changed"
    assert [(c.pinned, c.now) for c in verdict.changed] == [("2 GiB", "4 GiB")]


@pytest.mark.parametrize(
    ("pin", "said", "pinned", "now"),
    [
        (
            "Access tokens expire after 15 minutes.",
            "Access tokens now expire after 30 minutes.",
            "15 minutes",
            "30 minutes",
        ),
        ("Deploy to us-east-2 only.", "Deploys go to us-west-2.", "us-east-2", "us-west-2"),
        ("Phone numbers are in E.164.", "Phone numbers are in E.123.", "E.164", "E.123"),
        ("Commits must never use --no-verify.", "Commits may use --no-verify.", "never", "may"),
        ("Rotate the signing keys every 90 days.", "We decided against rotating them.", "Rotate",
         "decided against"),
    ],
)  # fmt: skip
def test_a_changed_value_or_a_reversed_rule_is_changed(pin, said, pinned, now) -> None:
    verdict = judge(pin, said)
    assert verdict.status == "changed"
    assert (verdict.changed[0].pinned, verdict.changed[0].now) == (pinned, now)


def test_swapped_values_are_changed_though_each_is_said() -> None:
    pin = "The staging cluster runs in us-east-2 and prod in us-west-2."
    said = "Clusters: staging is in us-west-2 and prod in us-east-2."
    assert judge(pin, said).status == "changed"
    kept = "Clusters: staging in us-east-2, prod in us-west-2."
    assert judge(pin, kept).status == "kept"


def test_a_faithful_paraphrase_with_other_words_is_kept() -> None:
    pin = "Access tokens expire after 15 minutes; refresh tokens rotate on every use."
    said = (
        "Access tokens last a quarter of an hour and each refresh token is swapped for a "
        "new one every time it is used (rotation on use)."
    )
    assert judge(pin, said).status == "kept"


def test_a_value_held_by_another_pin_is_no_change_of_this_one() -> None:
    pins = ["Lock an account for 30 minutes after 5 failed logins.", "Sessions last 15 minutes."]
    verdicts = judge_all(pins, "Sessions last 15 minutes. Lockout after 5 failed logins.")
    assert [v.status for v in verdicts] == ["degraded", "kept"]
    assert verdicts[0].missing == ("30 minutes",)


def test_a_numbered_restatement_is_judged_item_by_item() -> None:
    pins = ["Access tokens expire after 15 minutes.", "Refresh tokens live for 30 days."]
    said = "1. Access tokens: a quarter of an hour.\n2. Refresh tokens: 15 minutes as well."
    verdicts = judge_restatement(pins, said)
    # item 2 is judged against decision 2 alone: decision 1's value does not stand for it
    assert verdicts[1].status == "kept" and verdicts[2].status == "changed"
    assert [(c.pinned, c.now) for c in verdicts[2].changed] == [("30 days", "15 minutes")]


def test_a_restatement_that_keeps_every_value_and_the_direction_is_complete() -> None:
    pins = [
        "Never commit with --no-verify; the pre-commit hooks run gitleaks.",
        "Refresh tokens are stored in an httpOnly cookie, never in localStorage.",
    ]
    said = (
        "1. I won't bypass the hooks: no --no-verify, gitleaks runs in pre-commit.\n"
        "2. The refresh token goes in an httpOnly cookie and is not kept in localStorage."
    )
    assert [v.status for v in judge_restatement(pins, said).values()] == ["kept", "kept"]


def test_a_path_that_ends_a_sentence_loses_its_full_stop() -> None:
    folded = ["The date helpers live in src/utils/date.ts. Tests run in 412 ms."]
    summary = "Date helpers: src/utils/date.ts (tests are quick)."
    assert [d.term for d in dropped_not_pinned(folded, summary)] == ["412 ms"]


def test_dropped_not_pinned_lists_specifics_never_ordinary_words() -> None:
    folded = [
        "Set NODE_OPTIONS=--max-old-space-size=4096 because the build ran out of memory.",
        "The flaky test is checkout_spec.ts; it takes 3.9 s.",
    ]
    dropped = dropped_not_pinned(folded, "The build needed more memory.", ["Skip checkout_spec.ts"])
    assert [d.term for d in dropped] == ["NODE_OPTIONS", "--max-old-space-size=4096", "3.9 s"]


def test_the_judge_libraries_load_only_when_a_judgement_runs() -> None:
    code = (
        "import sys, supervisor.recognize.fusion, supervisor.recognize.loss_audit, "
        "supervisor.cli.hook, supervisor.rehydrate.recall_check;"
        "print(sorted(m for m in ('pint', 'numerizer', 'snowballstemmer', 'dateutil') "
        "if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("pin", "said"),
    [
        # a setting's key is part of its value
        ("HPA for web: minReplicas 3.", "1. HPA: maxReplicas 3."),
        # what an amount is counted per is part of it
        ("Attachments are limited to 10 MB per message.", "Attachments: 10 MB per thread."),
        ("Exports are capped at 500 rows per page.", "Exports stop at 500 rows per report."),
        # a word turned into its opposite, from the table of opposites rules use
        ("Certificates renew automatically before expiry.", "Certificate renewal is manual."),
        ("Sessions are validated server-side only.", "Sessions are validated client-side."),
        # a switch turned off by order, said on
        ("Disable prefetching on the image grid.", "The image grid now prefetches thumbnails."),
        # a rule that "no longer" holds, said as holding, its verb in other words
        ("The CLI no longer bundles the legacy exporter.", "The CLI ships the legacy exporter."),
        # an "only" widened, or its act done elsewhere
        ("Only admins may delete projects.", "Admins or project owners can delete projects."),
        (
            "Store dates as UTC; format them as local time only in the browser.",
            "The API formats dates as local time before sending them.",
        ),
        # a list said whole with more in it
        (
            "Allowed media: image/png, image/gif.",
            "Allowed media: image/png, image/gif, image/avif.",
        ),
        # a value given to the other thing the decision names
        ("Log level is 0.5 for web and 1.0 for workers.", "We log 50% of workers and all of web."),
        # the rejected alternative taken
        ("Shard orders by customer_id, not by region.", "Orders are sharded by region."),
    ],
)
def test_a_change_said_in_words_is_changed(pin: str, said: str) -> None:
    assert judge(pin, said).status == "changed", judge(pin, said)


@pytest.mark.parametrize(
    ("pin", "said"),
    [
        ("Attachments are limited to 10 MB per message.", "Each message may carry 10 MB."),
        ("Certificates renew automatically before expiry.", "Certs auto-renew before expiry."),
        ("Allowed media: image/png, image/gif.", "Only PNG and GIF images are allowed."),
        ("Only admins may delete projects.", "Deleting projects is for admins only."),
        ("Shard orders by customer_id, not by region.", "Orders: sharded by customer_id."),
    ],
)
def test_the_same_rule_in_other_words_is_kept(pin: str, said: str) -> None:
    assert judge(pin, said).status != "changed", judge(pin, said)


@pytest.mark.parametrize(
    "spellings",
    [
        ["150 minutes", "two and a half hours"],
        ["36 hours", "a day and a half"],
        ["45 seconds", "three quarters of a minute"],
        ["90 minutes", "an hour and a half"],
        ["3.5 days", "three days and a half"],
    ],
)
def test_a_half_added_before_or_after_its_unit_is_the_same_value(spellings: list[str]) -> None:
    first, *others = (the_specific(s) for s in spellings)
    assert all(same(first, other) for other in others), spellings


@pytest.mark.parametrize(
    ("pin", "said"),
    [
        # the subject of a negated verb is negated too
        (
            "Never call the payments API from a cron job.",
            "Calls to the payments API from a cron job never happen; a worker makes them instead.",
        ),
        # a refusal negates its clause as "never" does
        (
            "Guest checkout orders are refused when stock is below 5 units.",
            "When stock is under five units, no guest checkout order is taken.",
        ),
        # a bound in a condition is no bound of the negation
        (
            "Guest checkout orders are refused when stock is below 5 units.",
            "1. No guest checkout order is accepted if stock drops below 5 units.",
        ),
        # a negated bound is a limit, not a rule turned round
        (
            "Queues are capped at 500 messages.",
            "We won't let a queue grow beyond five hundred messages.",
        ),
        # a negated thing said in other words, negated too
        (
            "Dates come from date-fns; do not hand-write date formatting.",
            "date-fns formats every date; bespoke date formatting must not creep back in.",
        ),
        # "a minute and a half" is 90 seconds
        (
            "Sessions idle for 90 seconds are closed.",
            "A session left idle a minute and a half is closed.",
        ),
    ],
)
def test_a_rule_kept_in_other_grammar_is_not_reversed(pin: str, said: str) -> None:
    verdict = judge(pin, said)
    assert verdict.status == "kept", verdict


@pytest.mark.parametrize(
    ("pin", "said"),
    [
        ("Never call the payments API from a cron job.", "The cron job may call the payments API."),
        ("Queues are capped at 500 messages.", "Queues are capped at 800 messages."),
    ],
)
def test_the_grammar_fixes_still_see_a_change(pin: str, said: str) -> None:
    verdict = judge(pin, said)
    assert verdict.status == "changed", verdict


@pytest.mark.parametrize(
    "spellings",
    [
        ["64 KB", "64 kilobytes"],
        ["4 GiB", "four gibibytes"],
        ["150 minutes", "2h30", "2 h 30 min", "2 hours 30 minutes"],
        ["127 seconds", "2m7s", "2 min 7 s"],
    ],
)
def test_sizes_in_words_and_durations_in_two_units_are_one_value(spellings: list[str]) -> None:
    first, *others = (the_specific(s) for s in spellings)
    assert all(same(first, other) for other in others), spellings


def test_a_code_span_that_holds_quotes_is_one_specific_not_a_clause() -> None:
    said = 'Ran `tar --exclude "*.log"` on the box, then restarted it with `systemctl restart api`.'
    quoted = [s.text for s in extract(prepare(said)) if s.kind == "quoted"]
    assert quoted == ['tar --exclude "*.log"', "systemctl restart api"]


def test_a_duration_in_another_notation_is_not_dropped() -> None:
    dropped = dropped_not_pinned(
        ["The nightly export now finishes in 1 h 45 min instead of timing out."],
        "Nightly export fixed: it takes 1h45 now.",
    )
    assert dropped == []


def test_a_quarter_of_the_year_is_no_fraction() -> None:
    assert prepare("the migration is deferred to next quarter").text.endswith("next quarter")
    assert prepare("a quarter of an hour").text == "1/4 of an hour"
    verdict = judge(
        "Sharding the events table waits until next quarter.",
        "events table sharding: deferred to next qtr... next quarter, to be exact.",
    )
    assert verdict.status == "kept", verdict


def test_an_acronym_spelled_out_with_hyphens_is_kept() -> None:
    verdict = judge(
        "Ship the Persian and Urdu locales with full RTL layout by release 4.0.",
        "Right-to-left layout has to be complete for Urdu and Persian when 4.0 ships.",
    )
    assert verdict.status == "kept", verdict


@pytest.mark.parametrize(
    ("pin", "said"),
    [
        ("Build the docs site on Node.js 18.", "The docs site builds with Node 18."),
        ("Pin Python to 3.11 for the data jobs.", "Data jobs run on Python 3.11."),
    ],
)
def test_a_product_version_across_a_preposition_is_kept(pin: str, said: str) -> None:
    assert judge(pin, said).status == "kept"


def test_a_product_version_across_a_preposition_can_change() -> None:
    verdict = judge("Pin Node.js to 18 for the docs site.", "Docs site: now built with Node 21.")
    assert verdict.status == "changed", verdict
    assert [c.now for c in verdict.changed] == ["Node 21"]


def test_dropped_not_pinned_leaves_out_counts_said_in_words_and_lists_locales() -> None:
    dropped = dropped_not_pinned(
        ["Retried twice across three regions; the fr-CA strings were missing, fixed daily."],
        "Retries fixed.",
    )
    assert [d.term for d in dropped] == ["fr-CA"]


def test_a_mail_address_is_one_specific_and_another_address_is_a_change() -> None:
    (address,) = [s.text for s in extract(prepare("Replies go to help+eu@desk.example.org."))]
    assert address == "help+eu@desk.example.org"
    verdict = judge(
        "Invoices are sent from billing@pay.example.com.",
        "Invoices now go out from billing@example.com.",
    )
    assert verdict.status == "changed", verdict
    assert [(c.pinned, c.now) for c in verdict.changed] == [
        ("billing@pay.example.com", "billing@example.com")
    ]


def test_an_ordinal_threshold_is_its_count() -> None:
    pin = "Lock the account after 5 wrong passwords."
    assert judge(pin, "After the fifth wrong password the account locks.").status == "kept"
    assert judge(pin, "After the third wrong password the account locks.").status == "changed"
    assert "first" in prepare("ship on the first day of the month").text


def test_dropped_not_pinned_reads_none_as_zero_and_a_glob_as_its_extension() -> None:
    dropped = dropped_not_pinned(
        ["The cleanup found 0 orphans; it now also ignores `*.tmp` under build/cache/."],
        "Cleanup found no orphans, and skips .tmp files in build/cache/.",
    )
    assert dropped == []


def test_two_values_put_in_the_other_order_are_changed() -> None:
    pin = "Migrate the ledger in ap-south-1 first, then sa-east-1."
    verdict = judge(pin, "Ledger migration: sa-east-1 first, then ap-south-1 once it is green.")
    assert verdict.status == "changed", verdict
    assert [(c.pinned, c.now) for c in verdict.changed] == [
        ("ap-south-1 first, then sa-east-1", "sa-east-1 first, then ap-south-1")
    ]
    assert judge(pin, "The ledger moves to ap-south-1 first, then sa-east-1.").status == "kept"
