// Sharing mode time-slice's settings, read by its reader (sim/modes/plain_modes_reader.cc) or
// given by the NVIDIA device plugin's timeSlicing config; null in SharingConfig: these defaults.
#pragma once

namespace slicelab {

struct TimeSliceSettings {
  int replicas = 4;                       // pods taking turns on one GPU
  double context_switch_overhead = 0.05;  // share of the GPU's time lost switching
};

}  // namespace slicelab
