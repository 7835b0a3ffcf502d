# Reads gg-to-nvvm's output (gg compile --emit target) and counts its mbarrier arrivals
# without transaction bytes (nvgpu.mbarrier.arrive: the consumers'), those of them that one
# lane makes for its warp (under an scf.if: a stage's release, ping-pong's order arrive),
# and those of these not right after a warp sync (nvvm.bar.warp.sync before the scf.if):
# such an arrival can answer a wait that the warp's other lanes have not passed yet
# (docs/performance.md, "A hang at decode").
{ line[NR] = $0 }
/nvgpu\.mbarrier\.arrive / {
  ++all
  if (line[NR - 2] ~ /scf\.if/) {
    ++lane
    if (line[NR - 3] !~ /nvvm\.bar\.warp\.sync/) {
      ++unguarded
      print "unguarded arrival at line " NR ": " $0
    }
  }
}
END { print all + 0 " arrivals, " lane + 0 " by one lane, " unguarded + 0 " unguarded" }
