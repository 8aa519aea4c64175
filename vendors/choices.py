from django.db import models
from django.utils.translation import gettext_lazy as _


class VerificationState(models.TextChoices):
    CLAIMED = "claimed", _("Claimed by vendor")
    VERIFIED = "verified", _("Verified by team")
    REJECTED = "rejected", _("Rejected")


class Service(models.TextChoices):
    IDC = "idc", _("Data-centre space / colocation (IDC)")
    GPU_RENTAL = "gpu_rental", _("GPU server rental")
    CLOUD = "cloud", _("Cloud computing")
    BARE_METAL = "bare_metal", _("Bare-metal servers")
    CDN = "cdn", _("CDN")
    ISP = "isp", _("Internet access (ISP)")


class CertificationKind(models.TextChoices):
    ISO9001 = "iso9001", _("ISO 9001 (quality)")
    ISO27001 = "iso27001", _("ISO 27001 (information security)")
    OTHER = "other", _("Other")


class Ownership(models.TextChoices):
    SELF_OPERATED = "self_operated", _("Licensed self-operated (持牌自营)")
    LEASED = "leased", _("Leased from a third party")
    RE_LEASED = "re_leased", _("Re-leased / sublet (转租)")
    UNKNOWN = "unknown", _("Unknown")


class Fabric(models.TextChoices):
    IB = "ib", _("InfiniBand")
    ROCE = "roce", _("RoCE (RDMA over Ethernet)")
    TCP = "tcp", _("TCP / Ethernet")


class Topology(models.TextChoices):
    SPINE_LEAF = "spine_leaf", _("Spine-leaf")
    THREE_TIER = "three_tier", _("Three-tier")
    UNKNOWN = "unknown", _("Unknown")


class IssuerScope(models.TextChoices):
    NATIONAL = "national", _("Cross-regional (MIIT)")
    PROVINCIAL = "provincial", _("Provincial")


BUSINESS_CODES = (
    ("B11", _("B11 Internet data centre (IDC)")),
    ("B12", _("B12 Content delivery network (CDN)")),
    ("B13", _("B13 Domestic IP-VPN")),
    ("B14", _("B14 Internet access (ISP)")),
    ("B21", _("B21 Online data processing and transaction processing")),
    ("B22", _("B22 Domestic multi-party communication")),
    ("B23", _("B23 Store-and-forward")),
    ("B24", _("B24 Call centre")),
    ("B25", _("B25 Information services (ICP)")),
    ("B26", _("B26 Coding and protocol conversion")),
)
