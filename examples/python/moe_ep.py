"""The MoE layer of moe.py with its experts split across ranks (expert parallelism), checked
against the one-GPU layer on the same tokens.

    torchrun --nproc-per-node 2 examples/python/moe_ep.py [--tokens T] [--hidden H]
        [--intermediate I] [--experts E] [--top-k K] [--device cpu|cuda]

Every rank routes its own tokens, sends each (token, expert) row to the rank that holds the
expert with torch.distributed.all_to_all_single (NCCL on CUDA, gloo on the CPU), runs its
experts with gg's grouped GEMMs, and sends the results back, where they are summed with the
routing weights. The split sizes of the exchange are read on the host (the collective
takes them as lists); the grouped GEMMs read their group sizes on the device. The result
is compared with moe.MoE's forward over all experts on one device; with NCCL keep NVLink
multicast off (NCCL_NVLS_ENABLE=0).
"""

import argparse
import os
import sys

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import moe  # noqa: E402


def expert_parallel_forward(layer, x, rank, world):
    """layer's forward with this rank holding experts [rank L, (rank + 1) L), L = E / world."""
    local = layer.experts // world
    tokens, top_k = x.shape[0], layer.top_k
    weights, experts = moe.route(x, layer.router, top_k)
    flat = experts.reshape(-1)
    order = torch.argsort(flat, stable=True)  # rows sorted by expert, so by destination rank
    send = x[order // top_k]
    # Rows for each (destination rank, its local expert), exchanged so each rank learns
    # how many rows of each of its experts every source sends.
    counts = moe.expert_counts(flat, layer.experts).view(world, local)
    received_counts = torch.empty_like(counts)
    dist.all_to_all_single(received_counts, counts)
    send_splits = counts.sum(1).tolist()
    receive_splits = received_counts.sum(1).tolist()
    received = send.new_empty((sum(receive_splits), x.shape[1]))
    dist.all_to_all_single(received, send, receive_splits, send_splits)
    # Received rows come by source rank, each source's sorted by expert: regroup by expert.
    expert_of_row = torch.repeat_interleave(
        torch.arange(local, device=x.device).repeat(world), received_counts.reshape(-1),
        output_size=received.shape[0])
    regroup = torch.argsort(expert_of_row, stable=True)
    m_sizes = received_counts.sum(0).to(torch.int64)
    first = rank * local
    y = layer.expert_ffn(received[regroup], m_sizes, layer.w13_q[first:first + local],
                         layer.w13_s[first:first + local], layer.w2_q[first:first + local],
                         layer.w2_s[first:first + local])
    back = torch.empty_like(y)
    back[regroup] = y
    returned = back.new_empty((send.shape[0], y.shape[1]))
    dist.all_to_all_single(returned, back, send_splits, receive_splits)
    return moe.unpermute(returned, order, weights, tokens, top_k)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--tokens", type=int, default=64, help="tokens per rank")
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--intermediate", type=int, default=256)
    p.add_argument("--experts", type=int, default=8)
    p.add_argument("--top-k", type=int, default=2)
    args = p.parse_args(argv)
    cuda = args.device == "cuda"
    dist.init_process_group(backend="nccl" if cuda else "gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    if args.experts % world:
        raise SystemExit("moe_ep: %d experts do not split over %d ranks" % (args.experts, world))
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", rank))) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    layer = moe.MoE(args.hidden, args.intermediate, args.experts, args.top_k, device, seed=0)  # same on every rank
    batch = torch.randn(args.tokens * world, args.hidden, generator=torch.Generator().manual_seed(1))
    x = batch[rank * args.tokens:(rank + 1) * args.tokens].to(torch.bfloat16).to(device)

    out = expert_parallel_forward(layer, x, rank, world)
    one_device = layer(x)  # every expert here
    reference = layer.reference(x)
    identical = torch.equal(out, one_device)
    diff = moe.relative_error(out, one_device)
    err = moe.relative_error(out, reference)
    results = torch.tensor([float(identical), diff, err], dtype=torch.float64, device=device)
    gathered = [torch.empty_like(results) for _ in range(world)]
    dist.all_gather(gathered, results)
    ok = all(g[1].item() < 1e-2 and g[2].item() < 0.1 for g in gathered)
    if rank == 0:
        for r, g in enumerate(gathered):
            print("moe_ep rank %d/%d (%s, experts %d-%d): %s the one-device layer (relative difference %.2e), "
                  "relative error %.4f vs bf16"
                  % (r, world, args.device, r * args.experts // world, (r + 1) * args.experts // world - 1,
                     "bit-identical to" if g[0].item() else "differs from", g[1].item(), g[2].item()))
        print("moe_ep: %s" % ("PASS" if ok else "FAIL"))
    dist.destroy_process_group()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
