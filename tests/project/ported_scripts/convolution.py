"""A 2-D convolution (blur and edge detection) of a small image, written as everyday NumPy."""
import numpy as np

h, w = 12, 16
yy, xx = np.mgrid[0:h, 0:w]
image = np.sin(xx / 3.0) * np.cos(yy / 4.0) + (xx > 8) * 0.5
print(f"image {image.shape}: min {image.min():.4f} max {image.max():.4f}")


def convolve2d(img, kernel):
    kh, kw = kernel.shape
    padded = np.pad(img, ((kh // 2, kh // 2), (kw // 2, kw // 2)), mode="edge")
    out = np.zeros_like(img)
    for i in range(kh):
        for j in range(kw):
            out += kernel[kh - 1 - i, kw - 1 - j] * padded[i:i + img.shape[0], j:j + img.shape[1]]
    return out


blur = np.ones((3, 3)) / 9.0
sobel_x = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=float)
smooth = convolve2d(image, blur)
edges = convolve2d(smooth, sobel_x)
print(f"blurred mean {smooth.mean():.6f}, edge energy {np.sum(edges ** 2):.4f}")
row, col = np.unravel_index(np.argmax(np.abs(edges)), edges.shape)
print(f"strongest edge at ({int(row)}, {int(col)}): {edges[row, col]:+.4f}")
mask = np.abs(edges) > 0.5
print("edge pixels per row:", mask.sum(axis=1).tolist())
print("columns with edges:", np.unique(np.nonzero(mask)[1]).tolist())
for r in range(0, h, 4):
    print(" ".join(f"{v:5.2f}" for v in smooth[r, ::3]))
print("threshold:", round(float(np.percentile(np.abs(edges), 90)), 4))
print(f"{'ok' if np.allclose(convolve2d(image, np.eye(1)), image) else 'mismatch'}")
