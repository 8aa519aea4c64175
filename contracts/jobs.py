"""The contracts app's job kinds (core.jobs runs them): read an evidence file, evaluate a
contract's delivery, pull its Prometheus and build a claim pack."""

from __future__ import annotations

from core.jobs import JobKind, Progress, register

from .models import ClaimPack, DeliveryEvaluation, DeliveryUpload, PrometheusSource


def _read(upload_id: int, progress: Progress) -> str:
    from .evidence import delivery_read

    # A file the reader refuses is a finished job with its message, not a crash.
    return delivery_read(upload_id=upload_id, progress=progress)


def _evaluate(evaluation_id: int, progress: Progress) -> str:
    from .evidence import delivery_evaluate

    return delivery_evaluate(evaluation_id=evaluation_id, progress=progress)


def _pull(source_id: int, progress: Progress) -> str:
    from .prometheus import prometheus_pull

    return prometheus_pull(source_id=source_id, progress=progress)


def _claim(pack_id: int, progress: Progress) -> str:
    from .claims import claim_pack_build

    return claim_pack_build(pack_id=pack_id, progress=progress)


def _task(name: str):  # type: ignore[no-untyped-def]
    def load():  # type: ignore[no-untyped-def]
        from . import tasks

        return getattr(tasks, name)

    return load


READ = register(JobKind(name="delivery_read", model=DeliveryUpload, work=_read,
                        task=_task("read_delivery_upload"),
                        keep_status=frozenset({"done", "failed"})))  # fmt: skip
EVALUATE = register(JobKind(name="delivery_evaluate", model=DeliveryEvaluation, work=_evaluate,
                            task=_task("evaluate_delivery")))  # fmt: skip
PULL = register(JobKind(name="prometheus_pull", model=PrometheusSource, work=_pull,
                        task=_task("pull_prometheus"),
                        # a source is pulled again and again: done is not final for it
                        finished=lambda row: False,
                        keep_status=frozenset({"failed"}),
                        requeueable=lambda: PrometheusSource.objects.none()))  # fmt: skip
CLAIM = register(JobKind(name="claim_pack", model=ClaimPack, work=_claim,
                         task=_task("build_claim_pack")))  # fmt: skip
