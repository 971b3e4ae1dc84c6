"""The one place a policy's logits meet the legal mask, for every path that plays a policy
(agent files, rollouts, search priors, the batched opponent bank, ``machu dataset``, the
trainer's sampling, the probe's exploiter, the web app's hints).

Illegal logits become ``-inf`` rather than a large negative number: a network whose legal
logits are themselves about -1e17 (a file within every weight bound can do that) would
otherwise tie its legal and "masked" actions in float32 and choose illegal ones. Legal logits
that are not finite (NaN, ±inf from an overflow) are first brought into float32's range, NaN
counting as the least likely, so a legal action always wins the argmax and the softmax over the
legal actions is a distribution. A row with no legal action at all (a finished game in a batch,
which the caller ignores) is left unmasked so that it yields numbers, not NaN.
"""

from __future__ import annotations

FLOAT32_MAX = 3.4028234663852886e38


def masked_logits(logits, masks):
    """``logits`` (float, ``(B, A)``) with the illegal entries of ``masks`` (bool, same shape)
    set to ``-inf`` and the legal ones finite, as float32."""
    import torch

    logits = torch.nan_to_num(logits.float(), nan=-FLOAT32_MAX, posinf=FLOAT32_MAX,
                              neginf=-FLOAT32_MAX)
    masks = torch.as_tensor(masks, dtype=torch.bool, device=logits.device)
    masks = masks | ~masks.any(dim=-1, keepdim=True)  # no legal action: leave the row alone
    return torch.where(masks, logits, torch.tensor(-torch.inf, device=logits.device))


def masked_argmax(logits, masks):
    """The legal action of highest logit per row (the first of equal maxima)."""
    return masked_logits(logits, masks).argmax(dim=-1)


def masked_probabilities(logits, masks, temperature: float = 1.0):
    """softmax(logits / T) over the legal actions (0 for the illegal ones); T > 0."""
    import torch

    if temperature != 1.0:
        logits = logits.float() / temperature  # scaled first: the mask cannot be scaled away
    return torch.softmax(masked_logits(logits, masks), dim=-1)
