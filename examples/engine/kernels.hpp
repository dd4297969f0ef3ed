// The engine's kernels, each in a naive form (written for clarity, in double where it
// matters: the reference) and an optimized one (blocked, fused, float), chosen by
// probe::reference_mode() (--probe_reference). Plain functions on pointers, shared by the
// engine's ops and by their replay registrations (engine.cpp).
#pragma once
#include <probe/probe.hpp>

#include <cmath>
#include <cstdint>

namespace engine {

extern bool planted_bug;  // --bug: an error in the optimized softmax

// y[m, n] = x[m, k] * w[k, n] (+ b[n] when given)
inline void matmul(const float* x, const float* w, const float* b, float* y, int m, int k, int n) {
  if (probe::reference_mode()) {
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double s = b ? b[j] : 0.0;
        for (int p = 0; p < k; ++p) s += static_cast<double>(x[i * k + p]) * w[p * n + j];
        y[i * n + j] = static_cast<float>(s);
      }
    return;
  }
  // Blocked over k and n: rows of w stream through the cache once per block of x's rows.
  constexpr int kb = 64, nb = 64;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) y[i * n + j] = b ? b[j] : 0.0f;
  for (int p0 = 0; p0 < k; p0 += kb)
    for (int j0 = 0; j0 < n; j0 += nb)
      for (int i = 0; i < m; ++i)
        for (int p = p0; p < p0 + kb && p < k; ++p) {
          const float a = x[i * k + p];
          const float* wr = w + p * n;
          float* yr = y + i * n;
          for (int j = j0; j < j0 + nb && j < n; ++j) yr[j] += a * wr[j];
        }
}

// Layer normalization of each row, with gain and bias.
inline void layer_norm(const float* x, const float* g, const float* b, float* y, int rows, int cols, double eps) {
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    double mean = 0, var = 0;
    if (probe::reference_mode()) {
      for (int c = 0; c < cols; ++c) mean += xr[c];
      mean /= cols;
      for (int c = 0; c < cols; ++c) var += (xr[c] - mean) * (xr[c] - mean);
      var /= cols;
    } else {  // one pass (Welford) in float
      float m = 0, s = 0;
      for (int c = 0; c < cols; ++c) {
        const float d = xr[c] - m;
        m += d / static_cast<float>(c + 1);
        s += d * (xr[c] - m);
      }
      mean = m;
      var = s / cols;
    }
    const double inv = 1 / std::sqrt(var + eps);
    for (int c = 0; c < cols; ++c) y[r * cols + c] = static_cast<float>((xr[c] - mean) * inv) * g[c] + b[c];
  }
}

// Causal self-attention of one head: softmax(q k^T / sqrt(d)) v, rows are positions.
inline void attention(const float* q, const float* k, const float* v, float* y, int t, int d) {
  const double scale = 1 / std::sqrt(static_cast<double>(d));
  for (int i = 0; i < t; ++i) {
    if (probe::reference_mode()) {
      double w[256], mx = -1e300, sum = 0;
      for (int j = 0; j <= i; ++j) {
        double s = 0;
        for (int c = 0; c < d; ++c) s += static_cast<double>(q[i * d + c]) * k[j * d + c];
        w[j] = s * scale;
        mx = w[j] > mx ? w[j] : mx;
      }
      for (int j = 0; j <= i; ++j) sum += (w[j] = std::exp(w[j] - mx));
      for (int c = 0; c < d; ++c) {
        double acc = 0;
        for (int j = 0; j <= i; ++j) acc += w[j] / sum * v[j * d + c];
        y[i * d + c] = static_cast<float>(acc);
      }
      continue;
    }
    // Online softmax: one pass over the keys, running max and sum, output rescaled.
    float mx = -INFINITY, sum = 0;
    float acc[128] = {};
    for (int j = 0; j <= i; ++j) {
      float s = 0;
      for (int c = 0; c < d; ++c) s += q[i * d + c] * k[j * d + c];
      s *= static_cast<float>(scale);
      const float m2 = s > mx ? s : mx;
      const float back = std::exp(mx - m2), e = std::exp(s - m2);
      // The planted bug: the running sum is not rescaled when the maximum moves.
      sum = (planted_bug ? sum : sum * back) + e;
      for (int c = 0; c < d; ++c) acc[c] = acc[c] * back + e * v[j * d + c];
      mx = m2;
    }
    for (int c = 0; c < d; ++c) y[i * d + c] = acc[c] / sum;
  }
}

// GELU, tanh form: in double (reference) or float.
inline void gelu(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    y[i] = probe::reference_mode()
               ? static_cast<float>(0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))))
               : 0.5f * x[i] * (1 + std::tanh(0.7978845608f * (x[i] + 0.044715f * x[i] * x[i] * x[i])));
  }
}

// x += r, in place (the residual stream).
inline void residual_add(float* x, const float* r, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] += r[i];
}

}  // namespace engine
