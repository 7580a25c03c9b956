// Sharing mode mps's settings (issue 4; docs/sharing-models.md), read by its reader
// (sim/modes/plain_modes_reader.cc) or given by the device plugin's mps config; null: defaults.
#pragma once

namespace slicelab {

struct MpsSettings {
  int replicas = 0;                // > 0: N equal clients (100/N % threads, 1/N memory); 0: per pod
  double fault_propagation = 0.5;  // chance each neighbour fails with a client
  double client_fault_probability = 0.0;  // chance a client hits a fatal fault at start
};

}  // namespace slicelab
