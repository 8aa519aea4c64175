"""Labels the portal writes itself, shown in the reader's language.

The portal names some records for the user: the quote made from an RFQ answer ("RFQ 2 · Acme
Cloud"), the ranking an RFQ starts ("RFQ 2 · 64×A100 …"), the test runs of a supplier's evidence
and of an award's acceptance test, and the demo's serving offers ("4×8 A100 · serving · fixed").
They are stored as text (a user may edit them like any label), in English when written now; rows
written before were in the language of whoever (or whichever job) wrote them. `shown` recognises
each generated form in either language and writes it in the reader's; any other text is the
user's own and is shown as stored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from .messages import Message


@dataclass(frozen=True)
class GeneratedLabel:
    """One generated form: `{name}` placeholders in its English and Chinese text."""

    code: str
    en: str
    zh: str

    def compose(self, **parts: object) -> Message:
        """The label of these parts in both languages."""
        values = {k: str(v) for k, v in parts.items()}
        return Message(self.code, self.en.format(**values), self.zh.format(**values))


# The more specific forms first: "RFQ 2 · acceptance test" also reads as "RFQ 2 · <title>".
RFQ_ACCEPTANCE = GeneratedLabel("rfq_acceptance", "RFQ {rfq} · acceptance test",
                                "询价单 {rfq} · 验收测试")  # fmt: skip
RFQ_EVIDENCE = GeneratedLabel("rfq_evidence", "RFQ {rfq} · evidence of {vendor}",
                              "询价单 {rfq} · {vendor} 的证据")  # fmt: skip
# An RFQ answer's quote: its vendor is shown beside every quote label, so the label does not
# repeat it (rows stored before named it, in the vendor's Chinese name: "RFQ 2 · <vendor>").
RFQ_BID = GeneratedLabel("rfq_bid", "RFQ {rfq} · bid", "询价单 {rfq} · 报价")
RFQ_NAMED = GeneratedLabel("rfq_named", "RFQ {rfq} · {name}", "询价单 {rfq} · {name}")
SERVING_P95 = GeneratedLabel("serving_p95", "{offer} · serving · 95th pct",
                             "{offer} · 推理服务 · 95 计费")  # fmt: skip
SERVING_PER_GB = GeneratedLabel("serving_per_gb", "{offer} · serving · per GB",
                                "{offer} · 推理服务 · 按流量计费")  # fmt: skip
SERVING_FIXED = GeneratedLabel("serving_fixed", "{offer} · serving · fixed",
                               "{offer} · 推理服务 · 固定带宽")  # fmt: skip
SERVING_BY_BILLING = {"p95": SERVING_P95, "per_gb": SERVING_PER_GB, "fixed": SERVING_FIXED}

GENERATED = (
    RFQ_ACCEPTANCE,
    RFQ_EVIDENCE,
    RFQ_BID,
    RFQ_NAMED,
    SERVING_P95,
    SERVING_PER_GB,
    SERVING_FIXED,
)


def _pattern(text: str) -> re.Pattern[str]:
    """A full-match pattern of a form: `{rfq}` a number, any other placeholder some text."""
    out, pos = [], 0
    for m in re.finditer(r"\{(\w+)\}", text):
        out.append(re.escape(text[pos : m.start()]))
        name = m.group(1)
        out.append(rf"(?P<{name}>\d+)" if name == "rfq" else rf"(?P<{name}>.+?)")
        pos = m.end()
    out.append(re.escape(text[pos:]))
    return re.compile("".join(out), re.DOTALL)


@cache
def _patterns() -> tuple[tuple[GeneratedLabel, re.Pattern[str]], ...]:
    return tuple((g, _pattern(t)) for g in GENERATED for t in (g.en, g.zh))


def parse(label: str) -> tuple[GeneratedLabel, dict[str, str]] | None:
    """The generated form of a stored label and its parts (None: the user's own text)."""
    if not label or "·" not in label:
        return None
    for form, pattern in _patterns():
        m = pattern.fullmatch(label.strip())
        if m:
            return form, {k: v.strip() for k, v in m.groupdict().items()}
    return None


def shown(label: str, language: str | None) -> str:
    """The label in the reader's language (``zh…`` Chinese, else English)."""
    found = parse(label)
    if found is None:
        return label
    form, parts = found
    if "offer" in parts:  # a serving offer's own head may be a generated label too
        parts["offer"] = shown(parts["offer"], language)
    return form.compose(**parts).text(language)
