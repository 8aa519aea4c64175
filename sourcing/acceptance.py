"""Acceptance-gated awards: the award's criteria checked against the acceptance test run.

Criterion (stated on the award): at least ``min_pairs`` pairs ran concurrently, the slowest of
them reached ``min_line_fraction`` of the line rate, and every log was uploaded before the trial
period ended. When the RFQ names a published acceptance envelope (``Rfq.acceptance_envelope``,
domain/evidence/envelopes.py), every gradable acceptance log (ib_write_bw per HCA, single-node
all_reduce) must be within it, and at least one must be graded. The evidence returned is stored
on the award and shown as it is.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from benchmarks.admission import envelope_summary
from benchmarks.models import TestRun
from core.models import JobStatus
from domain.evidence import envelopes
from domain.messages import Message

WAIT = "wait"
STOP = "stop"


def acceptance_blocker(award) -> tuple[str, str] | None:  # type: ignore[no-untyped-def]
    """Why the check cannot judge now: (WAIT, reason) while logs are parsed, (STOP, reason)
    when waiting would not help (no log at all). None when a verdict can be given."""
    run = TestRun.objects.filter(pk=award.acceptance_run_id).first()
    if run is None or not run.logs.filter(is_archive=False).exists():
        return STOP, _(
            "No acceptance log has been uploaded yet: upload the logs of the acceptance test "
            "run on the rented cluster."
        )
    logs = list(run.logs.filter(is_archive=False).values_list("status", flat=True))
    waiting = sum(1 for status in logs if status not in (JobStatus.DONE, JobStatus.FAILED))
    if waiting:
        return WAIT, _("%(n)s of %(total)s acceptance log(s) are still being parsed.") % {
            "n": waiting,
            "total": len(logs),
        }
    if run.status != JobStatus.DONE:
        return WAIT, _("The acceptance test run is still being summarised.")
    return None


def stopped_evidence(reason: str) -> dict[str, Any]:
    """What an award shows when its check stopped without a verdict, and why."""
    return {"passed": None, "stopped": True, "reasons": [reason]}


def acceptance_evidence(award) -> dict[str, Any] | None:  # type: ignore[no-untyped-def]
    """Evidence dict with ``passed`` and ``reasons``, or None while logs are still parsing."""
    if award.acceptance_run_id is None:
        return None
    run = TestRun.objects.get(pk=award.acceptance_run_id)
    logs = list(run.logs.filter(is_archive=False).order_by("uploaded_at", "pk"))
    if not logs or run.status != JobStatus.DONE or any(not log.is_finished for log in logs):
        return None
    line = run.effective_line_rate_gbps
    slowest_share = run.min_pair_gbps / line if line and run.min_pair_gbps is not None else None
    late = [log.original_name for log in logs
            if award.trial_ends_at and log.uploaded_at > award.trial_ends_at]  # fmt: skip
    unparsed = [log.original_name for log in logs if log.status == JobStatus.FAILED]
    reasons: list[str] = []
    if run.pairs < award.min_pairs:
        reasons.append(_("%(n)s concurrent pair(s) measured, %(need)s required.")
                       % {"n": run.pairs, "need": award.min_pairs})  # fmt: skip
    if slowest_share is None:
        reasons.append(_("No line rate or throughput to compare: the share cannot be judged."))
    elif slowest_share < award.min_line_fraction:
        reasons.append(
            _("The slowest pair reached %(got).1f%% of line rate; %(need).0f%% required.")
            % {"got": 100 * slowest_share, "need": 100 * award.min_line_fraction}
        )
    if late:
        reasons.append(_("Uploaded after the trial period ended: %(files)s.")
                       % {"files": ", ".join(late)})  # fmt: skip
    if unparsed:
        reasons.append(_("Logs that could not be parsed (left out): %(files)s.")
                       % {"files": ", ".join(unparsed)})  # fmt: skip
    named = award.rfq.acceptance_envelope or None
    graded = envelope_summary(logs, award.answer.quote, named=named) if named else None
    envelope_ok = True
    if named:
        envelope_ok = graded is not None and graded["status"] == envelopes.WITHIN
        if graded is None:
            env = envelopes.by_key(named)
            name = Message("", env.name_en, env.name_zh) if env else Message("", named, named)
            reasons.append(
                _("No acceptance log can be graded against the %(envelope)s envelope (it grades "
                  "ib_write_bw per HCA and a single-node all_reduce).")
                % {"envelope": name.text(get_language())}
            )  # fmt: skip
        elif not envelope_ok:
            reasons.append(Message(**{k: graded[k] for k in ("code", "en", "zh")}).text(
                get_language()))  # fmt: skip
    passed = (
        run.pairs >= award.min_pairs
        and slowest_share is not None
        and slowest_share >= award.min_line_fraction
        and not late
        and envelope_ok
    )
    return {
        "passed": passed,
        "reasons": reasons,
        "test_run": run.pk,
        "pairs": run.pairs,
        "line_rate_gbps": line,
        "min_pair_gbps": run.min_pair_gbps,
        "aggregate_gbps": run.aggregate_gbps,
        "aggregate_vs_line": run.aggregate_vs_line,
        "slowest_pair_share": slowest_share,
        "tail_p5_gbps": run.tail_p5_gbps,
        "run_verdict": run.verdict,
        "logs": [{"name": log.original_name, "sha256": log.sha256,
                  "uploaded_at": log.uploaded_at.isoformat(),
                  "throughput_gbps": log.throughput_gbps, "status": log.status} for log in logs],
        "envelope": graded,
        "criteria": {"min_pairs": award.min_pairs, "min_line_fraction": award.min_line_fraction,
                     "envelope": named,
                     "trial_ends_at": award.trial_ends_at.isoformat()
                     if award.trial_ends_at else None},
    }  # fmt: skip
