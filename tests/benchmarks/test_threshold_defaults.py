"""The thresholds' defaults have one source, the domain's DEFAULT_THRESHOLDS."""

from benchmarks.models import AcceptanceThresholds
from benchmarks.parsing import Limits
from domain.benchlogs.verdict import DEFAULT_THRESHOLDS, Thresholds


def test_limits_defaults_are_the_domain_defaults():
    assert Limits().thresholds() == DEFAULT_THRESHOLDS == Thresholds()


def test_model_defaults_are_the_domain_defaults():
    fresh = AcceptanceThresholds()
    limits = Limits(**{name: getattr(fresh, name) for name in Limits.__dataclass_fields__})
    assert limits.thresholds() == DEFAULT_THRESHOLDS
    assert (fresh.warn_margin, fresh.p99_latency_tcp_us) == (0.10, 100.0)
