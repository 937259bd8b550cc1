// 3-D affine transforms (kernels/warp/affine_transform_3d.h) and the volume warp
// (kernels/warp/warp_affine_3d.h): composition, inversion and the builders against their formulas;
// trilinear sampling against the 8-voxel blend written out here, the border modes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kernels/warp/affine_transform_3d.h"
#include "kernels/warp/warp_affine_3d.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

void ExpectNear(const Affine3D& a, const Affine3D& b, double tol = 1e-12) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) EXPECT_NEAR(a.m[r][c], b.m[r][c], tol) << r << "," << c;
}

TEST(Affine3D, ComposeInvertAndBuilders) {
  Affine3D r;
  ASSERT_TRUE(Rotation3D({1, 2, 3}, 37, &r));
  const Affine3D m = Compose(Translation3D({1, -2, 0.5}), Compose(Scaling3D({2, 3, 0.5}), r));
  Affine3D inv;
  ASSERT_TRUE(Invert(m, &inv));
  ExpectNear(Compose(m, inv), Affine3D{});
  ExpectNear(Compose(inv, m), Affine3D{});
  EXPECT_FALSE(Invert(Scaling3D({1, 0, 1}), &inv));
  EXPECT_FALSE(Rotation3D({0, 0, 0}, 10, &r));
  // A right-handed quarter turn about z takes x to y; about x takes y to z.
  ASSERT_TRUE(Rotation3D({0, 0, 2}, 90, &r));
  EXPECT_NEAR(r.Apply(1, 1, 0, 0), 1, 1e-12);
  ASSERT_TRUE(Rotation3D({3, 0, 0}, 90, &r));
  EXPECT_NEAR(r.Apply(2, 0, 1, 0), 1, 1e-12);
  // About a centre, the centre stays.
  const Affine3D c = AboutCenter3D(r, {1, 2, 3});
  EXPECT_NEAR(c.Apply(0, 1, 2, 3), 1, 1e-12);
  EXPECT_NEAR(c.Apply(1, 1, 2, 3), 2, 1e-12);
  EXPECT_NEAR(c.Apply(2, 1, 2, 3), 3, 1e-12);
  // 2-D transforms embed and project back exactly, and composing commutes with embedding.
  const Affine2D a = Compose(Rotation(20), Translation(3, 4)), b = Shear(0.1, 0.2);
  const Affine2D back = Project(Compose(Embed(a), Embed(b))), direct = Compose(a, b);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(back.m[i][j], direct.m[i][j], 1e-12);
  const Affine3D crop = CropTransform3D({0, 0, 10}, {2, 4, 0}, {0, 0, 0}, {1, 1, 1}, /*absolute=*/true);
  EXPECT_NEAR(crop.Apply(2, 0, 0, 10), 1, 1e-12);
  EXPECT_NEAR(crop.Apply(0, 2, 0, 0), 1, 1e-12);
}

TEST(WarpAffine3D, TrilinearBlendAndBorders) {
  const int64_t D = 4, H = 5, W = 6, C = 2;
  std::mt19937 rng(3);
  std::vector<float> in(size_t(D * H * W * C));
  for (float& v : in) v = std::uniform_real_distribution<float>(0, 100)(rng);
  auto voxel = [&](int64_t z, int64_t y, int64_t x, int64_t c, bool clamp, float fill) -> double {
    if (z < 0 || z >= D || y < 0 || y >= H || x < 0 || x >= W) {
      if (!clamp) return fill;
      z = std::clamp<int64_t>(z, 0, D - 1);
      y = std::clamp<int64_t>(y, 0, H - 1);
      x = std::clamp<int64_t>(x, 0, W - 1);
    }
    return in[size_t(((z * H + y) * W + x) * C + c)];
  };
  Affine3D m;
  ASSERT_TRUE(Rotation3D({1, 1, 1}, 20, &m));
  m = Compose(Translation3D({0.3, -0.7, 0.45}), m);
  for (bool clamp : {true, false}) {
    WarpOptions opt;
    opt.clamp = clamp;
    opt.fill = 7;
    std::vector<float> out(in.size());
    WarpAffine3D(DhwcView<const float>{in.data(), D, H, W, C}, DhwcView<float>{out.data(), D, H, W, C}, m, opt);
    for (int64_t z = 0; z < D; ++z)
      for (int64_t y = 0; y < H; ++y)
        for (int64_t x = 0; x < W; ++x) {
          const double p[3] = {m.Apply(0, x + 0.5, y + 0.5, z + 0.5) - 0.5, m.Apply(1, x + 0.5, y + 0.5, z + 0.5) - 0.5,
                               m.Apply(2, x + 0.5, y + 0.5, z + 0.5) - 0.5};
          const int64_t x0 = int64_t(std::floor(p[0])), y0 = int64_t(std::floor(p[1])), z0 = int64_t(std::floor(p[2]));
          const double fx = p[0] - x0, fy = p[1] - y0, fz = p[2] - z0;
          for (int64_t c = 0; c < C; ++c) {
            double want = 0;
            for (int dz = 0; dz < 2; ++dz)
              for (int dy = 0; dy < 2; ++dy)
                for (int dx = 0; dx < 2; ++dx)
                  want += (dz ? fz : 1 - fz) * (dy ? fy : 1 - fy) * (dx ? fx : 1 - fx) *
                          voxel(z0 + dz, y0 + dy, x0 + dx, c, clamp, 7.0f);
            ASSERT_NEAR(out[size_t(((z * H + y) * W + x) * C + c)], want, 1e-3) << clamp;
          }
        }
  }
  // uint8 output: rounded half away from zero and saturated.
  std::vector<float> big(in.size(), 300.0f);
  std::vector<uint8_t> u8(in.size());
  WarpAffine3D(DhwcView<const float>{big.data(), D, H, W, C}, DhwcView<uint8_t>{u8.data(), D, H, W, C}, Affine3D{},
               WarpOptions{});
  EXPECT_EQ(u8[0], 255);
  std::vector<float> half(in.size(), 2.5f);
  WarpAffine3D(DhwcView<const float>{half.data(), D, H, W, C}, DhwcView<uint8_t>{u8.data(), D, H, W, C}, Affine3D{},
               WarpOptions{});
  EXPECT_EQ(u8[5], 3);
  EXPECT_THROW(WarpAffine3D(DhwcView<const float>{in.data(), D, H, W, C}, DhwcView<float>{nullptr, 1, 1, 1, 1},
                            Affine3D{}, WarpOptions{}),
               Error);
}

}  // namespace
}  // namespace sluice::kernels
