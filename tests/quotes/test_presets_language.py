"""The workload presets read in the page's language: no English preset name on a Chinese page."""

from __future__ import annotations

from django.utils import translation

from quotes.presets import PRESETS, preset_data


def test_every_preset_name_is_in_the_readers_language() -> None:
    with translation.override("zh-hans"):
        zh = {key: preset_data(key)["name"] for key in PRESETS}
    with translation.override("en"):
        en = {key: preset_data(key)["name"] for key in PRESETS}
    assert en["pretrain-7b"] == "7B pre-training, 8 nodes"
    assert zh["pretrain-7b"] == "7B 预训练，8 个节点"
    assert all(zh[key] != en[key] and isinstance(zh[key], str) for key in PRESETS)


def test_the_start_from_links_are_in_the_readers_language() -> None:
    from quotes.presets import preset_links

    with translation.override("zh-hans"):
        labels = dict(preset_links())
    assert labels["finetune-1node"] == "7B 微调，单节点"
