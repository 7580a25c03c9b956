// The device memory a CUDA array takes (element format x channels x extent, summed over mipmap
// levels): what the interposer charges against a cap and what the test driver hands out.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>

namespace slicelab {

inline size_t cuda_format_bytes(CUarray_format f) {
  switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF:
      return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT:
      return 4;
    default:
      return 1;
  }
}

inline uint64_t array_bytes(const CUDA_ARRAY_DESCRIPTOR& d) {
  return uint64_t{d.Width} * (d.Height ? d.Height : 1) * d.NumChannels *
         cuda_format_bytes(d.Format);
}

// `levels` mipmap levels (0 counts as 1), each half the extent of the one before.
inline uint64_t array3d_bytes(const CUDA_ARRAY3D_DESCRIPTOR& d, unsigned levels = 1) {
  uint64_t bytes = 0, w = d.Width, h = d.Height ? d.Height : 1, z = d.Depth ? d.Depth : 1;
  for (unsigned l = 0; l < (levels ? levels : 1); ++l) {
    bytes += w * h * z * d.NumChannels * cuda_format_bytes(d.Format);
    w = w > 1 ? w / 2 : 1, h = h > 1 ? h / 2 : 1, z = z > 1 ? z / 2 : 1;
  }
  return bytes;
}

}  // namespace slicelab
