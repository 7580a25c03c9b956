// Sharing mode time-slice's settings, read by its reader (sim/modes/plain_modes_reader.cc) or
// given by the NVIDIA device plugin's timeSlicing config; null in SharingConfig: these defaults.
#pragma once

namespace slicelab {

struct TimeSliceSettings {
  int replicas = 4;                       // pods taking turns on one GPU
  double context_switch_overhead = 0.05;  // share of the GPU's time lost switching
  // How long one context holds the GPU before the next takes its turn. NVIDIA publishes no
  // default for its data-centre driver; its DRIVE OS documentation sets timeslices of 1 ms and
  // more (docs/inference-services.md#time-slicing). Matters only for request latency.
  double time_slice_s = 0.002;
};

}  // namespace slicelab
