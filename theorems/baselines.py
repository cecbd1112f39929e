"""Classical baselines: the Gaussian mechanism and composition bounds (placeholder filled in issue 8)."""
