"""Which encoder a leaderboard row ranked with, by name: its signed manifest claim, else its run's config."""

from __future__ import annotations

from dataclasses import dataclass

from memrecall.encoding.registry import by_weights, default_name, registry

NO_ENCODER = "none"
VARIANTS = ("backend", "precision")  # an identity's engine facts, named after the model: "mpnet onnx int8"


@dataclass(frozen=True)
class RowEncoder:
    """An encoder's name for the page, and whether it comes from signed content (else the unsigned config)."""

    name: str
    signed: bool

    @property
    def default(self) -> bool:
        """True for the registry's default encoder and for rows that use none."""
        return self.name in (default_name(), NO_ENCODER)

    @property
    def axis(self) -> bool:
        """True for a signed non-default encoder: its rows are keyed SYSTEM.ENCODER and README shows only its best."""
        return self.signed and not self.default


def claim_name(claim: dict) -> str:
    """A signed encoder identity's name: the registry name its weights match (else its id), then any variant."""
    spec = by_weights(claim.get("weights_sha256"))
    base = spec.name if spec is not None and spec.model_id == claim.get("id") else str(claim.get("id"))
    return " ".join([base, *(str(claim[k]) for k in VARIANTS if claim.get(k))])


def row_encoder(content: dict, config: object) -> RowEncoder:
    """The encoder of a row: the manifest's signed claim; else a model id its config names (an adapter's)."""
    claim = (content.get("comparability") or {}).get("encoder")
    if isinstance(claim, dict):
        return RowEncoder(claim_name(claim), True)
    model = config.get("model") if isinstance(config, dict) else None
    if isinstance(model, str) and model:
        spec = next((s for s in registry().values() if s.model_id == model), None)
        return RowEncoder(spec.name if spec else model, False)
    return RowEncoder(NO_ENCODER, False)
