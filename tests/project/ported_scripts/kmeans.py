"""k-means on three blobs of points, written as everyday NumPy."""
import numpy as np

# three blobs from a fixed pattern (no random stream: both libraries see the same data)
t = np.linspace(0.0, 2.0 * np.pi, 90, endpoint=False)
radius = 0.5 + 0.3 * np.sin(7 * t)
centers_true = np.array([[0.0, 0.0], [4.0, 1.0], [1.5, 4.0]])
points = np.stack([radius * np.cos(t), radius * np.sin(3 * t)], axis=1)
points = points + centers_true[np.arange(90) % 3]
print(f"points: {points.shape}, dtype {points.dtype}, mean {points.mean():.4f}")

k = 3
centroids = points[[0, 3, 7]].copy()       # two start in one blob
for step in range(20):
    distances = ((points[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
    labels = distances.argmin(axis=1)
    new = np.array([points[labels == j].mean(axis=0) for j in range(k)])
    shift = float(np.abs(new - centroids).max())
    centroids = new
    if shift < 1e-9:
        print(f"converged after {step + 1} steps")
        break

inertia = distances[np.arange(len(points)), labels].sum()
print(f"inertia: {inertia:.4f}")
for j in range(k):
    members = int((labels == j).sum())
    x, y = centroids[j]
    print(f"cluster {j}: {members:3d} points at ({x:+.3f}, {y:+.3f})")
order = np.argsort(centroids[:, 0])
print("sorted x:", [round(float(v), 3) for v in centroids[order, 0]])
counts = np.bincount(labels, minlength=k)
print("counts:", counts.tolist(), "largest:", int(counts.argmax()))
print(f"max distance to own centroid: {np.sqrt(distances.min(axis=1)).max():.5f}")
