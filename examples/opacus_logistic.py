"""DP-SGD with Opacus on a small logistic regression, accounted by this project (issue 17).

    pip install -e '.[opacus]'
    python examples/opacus_logistic.py [--epochs 5] [--seed 0]

Synthetic data (seeded, CPU only): 2,000 points in 10 dimensions, labels from a fixed linear rule with
10% flipped.  Opacus trains with Poisson sampling and per-example clipping; the noise multiplier is
lowered after the first epoch (a two-phase schedule).  At the end the epsilon of three accountants on
the same run is printed: this project's (``accountant="verify"``: the smallest verified bound, with its
theorem and bracket), Opacus' PRV (an upper estimate) and RDP accountants.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import torch
from opacus import PrivacyEngine
from opacus.accountants import PRVAccountant, RDPAccountant

import verify.account.opacus  # noqa: F401  registers accountant="verify" with Opacus

N, DIM, BATCH, CLIP, LR, DELTA = 2000, 10, 50, 1.0, 0.5, 1e-5
NOISE = (1.3, 1.0)  # noise multiplier in the first epoch, then after it


def synthetic_data(seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(N, DIM))
    x /= np.maximum(1.0, np.linalg.norm(x, axis=1, keepdims=True))  # features of norm <= 1
    w = rng.normal(size=DIM)
    y = (x @ w > 0).astype(np.float32)
    flip = rng.random(N) < 0.1
    y[flip] = 1.0 - y[flip]
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


def train(epochs: int = 5, seed: int = 0) -> dict:
    """Train; return the run (noise per step, sample rate, steps) and the accountants' epsilons."""
    torch.manual_seed(seed)
    x, y = synthetic_data(seed)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=BATCH,
                                         generator=torch.Generator().manual_seed(seed))
    model = torch.nn.Linear(DIM, 1)
    # summed loss, step size LR/BATCH: the canonical mean over the expected batch size (DESIGN.md §3), and
    # an empty Poisson batch is still a step (noise only): skipping it would reveal that it was empty
    optimizer = torch.optim.SGD(model.parameters(), lr=LR / BATCH, weight_decay=1e-3 * BATCH)
    engine = PrivacyEngine(accountant="verify", secure_mode=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Opacus warns about secure RNG on CPU
        model, optimizer, loader = engine.make_private(module=model, optimizer=optimizer, data_loader=loader,
                                                       noise_multiplier=NOISE[0], max_grad_norm=CLIP,
                                                       poisson_sampling=True, loss_reduction="sum")
    loss_fn = torch.nn.BCEWithLogitsLoss(reduction="sum")
    for epoch in range(epochs):
        optimizer.noise_multiplier = NOISE[0] if epoch == 0 else NOISE[1]
        for xb, yb in loader:
            optimizer.zero_grad()
            loss_fn(model(xb).squeeze(-1), yb).backward()
            optimizer.step()
    with torch.no_grad():
        accuracy = float(((model(x).squeeze(-1) > 0).float() == y).float().mean())
    history = list(engine.accountant.history)
    prv, rdp = PRVAccountant(), RDPAccountant()
    prv.history, rdp.history = list(history), list(history)
    return {"history": history, "accuracy": accuracy, "answer": engine.accountant.explain(DELTA),
            "verify": engine.get_epsilon(DELTA), "prv": prv.get_epsilon(DELTA), "rdp": rdp.get_epsilon(DELTA)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    out = train(args.epochs, args.seed)
    steps = sum(s for _, _, s in out["history"])
    print(f"trained {steps} steps (phases z, q, steps: {out['history']}), training accuracy {out['accuracy']:.3f}")
    print(f"eps at delta={DELTA:g}:  verify {out['verify']:.4f}   Opacus PRV {out['prv']:.4f}   "
          f"Opacus RDP {out['rdp']:.4f}")
    print(f"verify's answer: {out['answer']}")


if __name__ == "__main__":
    main()
