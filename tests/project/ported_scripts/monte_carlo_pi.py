"""Estimate pi by sampling the unit square, written as everyday NumPy."""
import math

import numpy as np

# a low-discrepancy R2 sequence instead of a random stream (the same points in both libraries)
g = 1.32471795724474602596
alpha = np.array([1 / g, 1 / g ** 2])

for n in (100, 1_000, 10_000, 100_000):
    i = np.arange(1, n + 1)
    samples = (0.5 + alpha[None, :] * i[:, None]) % 1.0
    x, y = samples[:, 0], samples[:, 1]
    inside = x * x + y * y <= 1.0
    estimate = 4 * inside.mean()
    error = abs(estimate - math.pi)
    print(f"n={n:>7,d}  inside={int(inside.sum()):>6d}  pi~{estimate:.6f}  error={error:.2e}")

hits = np.count_nonzero(inside)
quarter = samples[inside]
print(f"hits: {hits}, first hit: {quarter[0].round(4).tolist()}")
radii = np.hypot(quarter[:, 0], quarter[:, 1])
print(f"mean radius of hits: {radii.mean():.5f}, std {radii.std():.5f}")
histogram, edges = np.histogram(radii, bins=5, range=(0.0, 1.0))
for count, lo, hi in zip(histogram, edges[:-1], edges[1:]):
    print(f"  [{lo:.1f}, {hi:.1f}): {count:6d} {'#' * int(count // 2000)}")
print("estimate rounded:", round(4 * inside.mean(), 3), "as int:", int(estimate))
