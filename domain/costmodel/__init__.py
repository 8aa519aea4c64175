"""Cost per effective training hour (ETH) of rental offers, exactly as fixed in COST-MODEL.md.

Pure Python and numpy: the Django layer loads the GPU table from its database and passes it in, so
the model never reads data on its own. Every figure of COST-MODEL.md steps 1-8 is in the result.
Offers are evaluated column-wise with numpy because ranking 10,000 offers must take well under
0.1 s; `offer_problems` stays the per-offer authority on what is wrong with an input.

Currency: `rank` compares offers in one currency only. If every offer has the same currency and no
`fx_to_cny` is given, results keep that currency; otherwise every offer is converted to CNY (results
then say `currency="CNY"`) and an offer whose currency has no rate becomes a problem, never a guess.

Layout: :mod:`.inputs` (constants, GPU table, Workload, Offer, Scenario), :mod:`.results`,
:mod:`.validation` (per-offer messages), :mod:`.columns` (offers as numpy columns, the fast
screen), :mod:`.formulas` (steps 1-8), :mod:`.network_warnings`, :mod:`.ranking` (`rank`,
`evaluate`) and :mod:`.adapters` (dicts for the CLI and the API).
"""

from __future__ import annotations

from domain.costmodel.adapters import (
    offer_from_dict,
    outcome_to_dict,
    request_from_dict,
    result_to_dict,
    workload_from_dict,
)
from domain.costmodel.inputs import (
    BASE_SCENARIO,
    DEFAULT_GPU_TABLE,
    FABRIC_EFFICIENCY,
    HOURS_PER_MONTH,
    MEASURED_KINDS,
    REFERENCE_GPU,
    STRATEGY_FACTOR,
    GpuSpec,
    Offer,
    Scenario,
    Workload,
    default_gpus,
)
from domain.costmodel.network_warnings import (
    ROCE_LOSSLESS_UNKNOWN,
    ROCE_NO_LOSSLESS,
    UNVERIFIED,
)
from domain.costmodel.ranking import evaluate, rank
from domain.costmodel.results import OfferProblem, OfferResult, RankingOutcome
from domain.costmodel.validation import (
    ModelInputError,
    field_message,
    offer_problems,
    workload_problems,
)

__all__ = [
    "BASE_SCENARIO",
    "DEFAULT_GPU_TABLE",
    "FABRIC_EFFICIENCY",
    "HOURS_PER_MONTH",
    "MEASURED_KINDS",
    "REFERENCE_GPU",
    "ROCE_LOSSLESS_UNKNOWN",
    "ROCE_NO_LOSSLESS",
    "STRATEGY_FACTOR",
    "UNVERIFIED",
    "GpuSpec",
    "ModelInputError",
    "Offer",
    "OfferProblem",
    "OfferResult",
    "RankingOutcome",
    "Scenario",
    "Workload",
    "default_gpus",
    "evaluate",
    "field_message",
    "offer_from_dict",
    "offer_problems",
    "outcome_to_dict",
    "rank",
    "request_from_dict",
    "result_to_dict",
    "workload_from_dict",
    "workload_problems",
]
