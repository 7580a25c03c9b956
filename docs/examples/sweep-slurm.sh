#!/usr/bin/env bash
# One sweep across a Slurm array: task i of N runs shard i/N; a dependent job merges them.
#   bash docs/examples/sweep-slurm.sh   (on a login node: submits the array, then the merge
#                                        with afterok on the whole array)
# Paths are relative to the submission folder; results/ must be on a shared file system.
#SBATCH --job-name=slicelab-sweep
#SBATCH --array=0-7
#SBATCH --cpus-per-task=4
#SBATCH --mem=8G
#SBATCH --time=06:00:00
#SBATCH --output=results/slurm-%A_%a.out
set -euo pipefail

SWEEP=${SWEEP:-scenarios/sweeps/example-sweep.yaml}
OUT=${OUT:-results/example-sweep}

if [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
  # Submitted by hand (not as an array task): submit the array, then the merge after it.
  mkdir -p results
  array=$(sbatch --parsable "$0")
  sbatch --dependency=afterok:"$array" --job-name=slicelab-merge --cpus-per-task=1 \
    --output=results/slurm-merge-%j.out \
    --wrap "slicelab merge \$(ls -d $OUT/shard-* | sort -V) -o $OUT/merged"
  exit 0
fi

N=$SLURM_ARRAY_TASK_COUNT   # 8 for --array=0-7; task ids must be 0..N-1
slicelab sweep "$SWEEP" --shard "$SLURM_ARRAY_TASK_ID/$N" --jobs "$SLURM_CPUS_PER_TASK" \
  --out "$OUT/shard-$SLURM_ARRAY_TASK_ID" --quiet
