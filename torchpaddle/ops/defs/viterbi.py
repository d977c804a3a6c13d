"""viterbi_decode: the highest-scoring tag path of a linear-chain CRF, per sequence of a padded batch."""
import torch

from ..registry import op


@op("viterbi_decode", inputs=["Input", "Transition", "Length"], outputs=["Scores", "Path"],
    attrs={"include_bos_eos_tag": True}, differentiable=False)
def viterbi_decode(Input, Transition, Length, *, include_bos_eos_tag):
    """Input [B, T, N] emissions, Transition [N, N] (from-row, to-column), Length [B]. With the BOS/EOS tags
    row -1 scores the first tag (from the start tag) and row -2 the last (to the stop tag). Scores [B], Path [B, max(Length)] int64, zero past each sequence's end."""
    if Input.dim() != 3:
        raise ValueError(f"viterbi_decode: Input (potentials) must be 3-D [batch, seq_len, num_tags], "
                         f"got shape {list(Input.shape)}")
    batch, seq_len, n_tags = Input.shape
    if list(Transition.shape) != [n_tags, n_tags]:
        raise ValueError(f"viterbi_decode: Transition must be [num_tags, num_tags] = [{n_tags}, {n_tags}], "
                         f"got shape {list(Transition.shape)}")
    if Length.dim() != 1 or Length.shape[0] != batch:
        raise ValueError(f"viterbi_decode: Length must be 1-D with {batch} entries, got shape {list(Length.shape)}")
    lengths = Length.to(torch.int64)
    max_len = int(lengths.max()) if batch else 0
    if max_len > seq_len or (batch and int(lengths.min()) < 0):
        raise ValueError(f"viterbi_decode: Length entries must lie in [0, {seq_len}], got {lengths.tolist()}")
    trans = Transition.to(Input.dtype)
    alpha = Input[:, 0].clone()
    if include_bos_eos_tag:
        alpha = alpha + trans[-1].unsqueeze(0)
        stop = trans[-2].unsqueeze(0)  # Paddle reads the stop scores from a row too
        alpha = alpha + (lengths == 1).unsqueeze(1).to(alpha.dtype) * stop
    history = []
    for t in range(1, max_len):
        best, arg = (alpha.unsqueeze(2) + trans.unsqueeze(0)).max(dim=1)
        history.append(arg)
        live = (t < lengths).unsqueeze(1)
        nxt = best + Input[:, t]
        if include_bos_eos_tag:
            nxt = nxt + (lengths == t + 1).unsqueeze(1).to(nxt.dtype) * stop
        alpha = torch.where(live, nxt, alpha)
    scores, last = alpha.max(dim=1)
    path = torch.zeros(batch, max_len, dtype=torch.int64, device=Input.device)
    rows = torch.arange(batch, device=Input.device)
    tag = last
    for t in range(max_len - 1, -1, -1):
        here = t < lengths
        at_end = lengths == t + 1
        tag = torch.where(at_end, last, tag)
        path[:, t] = torch.where(here, tag, torch.zeros_like(tag))
        if t > 0:
            tag = torch.where(here, history[t - 1][rows, tag], tag)
    return scores, path
