"""What the tiers of test_estimates.py share (split by tier from one file)."""

import numpy as np


def hierarchical_processes(rng, processes, values, centre=1e-6, between=0.05, within=0.03):
    """Log-normal values nested in processes: each process has its own level (as on real machines)."""
    levels = rng.normal(0, between, processes)
    return [list(centre * np.exp(level + rng.normal(0, within, values))) for level in levels]


def paired_rounds(rng, rounds, ratio, values=20, state_jump=0.5, noise=0.01):
    """Rounds whose machine speed jumps between states shared by both contenders (as measured on
    a shared VM), with independent per-value noise."""
    reference, contender = {}, {}
    for r in range(rounds):
        states = np.where(rng.random(values) < 0.3, 1 + state_jump, 1.0)  # slow episodes
        process = rng.normal(0, 0.02, 2)
        reference[r] = list(1e-6 * states * np.exp(process[0] + rng.normal(0, noise, values)))
        contender[r] = list(ratio * 1e-6 * states * np.exp(process[1] + rng.normal(0, noise, values)))
    return reference, contender
