"""Load the GPU reference table of COST-MODEL.md (frozen here; the admin edits it afterwards)."""

from django.db import migrations

# key, name, TFLOPS (dense BF16), memory GB, memory type, intra-node GB/s, link, default mfu
GPU_ROWS = (
    ("H100-SXM", "NVIDIA H100 SXM (reference)", 989.0, 80, "HBM3", 450, "NVLink4 450 GB/s", 0.45),
    ("H800-SXM", "NVIDIA H800 SXM", 989.0, 80, "HBM3", 200, "NVLink 200 GB/s (export-cut; 150-200)", 0.45),
    ("H200-SXM", "NVIDIA H200 SXM", 989.0, 141, "HBM3e", 450, "NVLink4 450 GB/s", 0.45),
    ("H20", "NVIDIA H20", 148.0, 96, "HBM3", 450, "NVLink4 450 GB/s", 0.45),
    ("H100-PCIe", "NVIDIA H100 PCIe", 756.0, 80, "HBM2e", 63, "PCIe5 ~63 GB/s", 0.40),
    ("A100-SXM4-80GB", "NVIDIA A100 SXM4 80GB", 312.0, 80, "HBM2e", 300, "NVLink3 300 GB/s", 0.50),
    ("A100-SXM4-40GB", "NVIDIA A100 SXM4 40GB", 312.0, 40, "HBM2", 300, "NVLink3 300 GB/s", 0.50),
    ("A800-SXM4-80GB", "NVIDIA A800 SXM4 80GB", 312.0, 80, "HBM2e", 200, "NVLink 200 GB/s", 0.50),
    ("L40S", "NVIDIA L40S", 362.0, 48, "GDDR6", 31, "PCIe4 ~31 GB/s, no NVLink", 0.35),
    ("RTX4090", "NVIDIA GeForce RTX 4090", 165.0, 24, "GDDR6X", 31, "PCIe4 ~31 GB/s, no NVLink", 0.35),
    ("Ascend910B", "Huawei Ascend 910B (FP16 figure)", 320.0, 64, "HBM2e", 56, "HCCS ~56 GB/s", 0.40),
)


def load(apps, schema_editor):  # type: ignore[no-untyped-def]
    GpuModel = apps.get_model("quotes", "GpuModel")
    for key, name, tflops, mem, mem_type, link_gbs, link, mfu in GPU_ROWS:
        GpuModel.objects.update_or_create(
            key=key,
            defaults={
                "name": name,
                "tflops_bf16": tflops,
                "memory_gb": mem,
                "memory_type": mem_type,
                "intra_node_gbyte_s": link_gbs,
                "intra_node_link": link,
                "default_mfu": mfu,
            },
        )


def unload(apps, schema_editor):  # type: ignore[no-untyped-def]
    apps.get_model("quotes", "GpuModel").objects.filter(key__in=[r[0] for r in GPU_ROWS]).delete()


class Migration(migrations.Migration):
    dependencies = [("quotes", "0001_initial")]
    operations = [migrations.RunPython(load, unload)]
