source .devbundle/setup.sh >/dev/null
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $OUT/cmake.log 2>&1 && cmake --build build-gpu -j 16 > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
(cd build-gpu && timeout 150 ctest -R "gpu_multi|np4_2_2_1" -V > $OUT/multi.log 2>&1; grep -E "^[0-9]+: (ok|FAIL|skip|passed|FAILED)|Passed|Failed" $OUT/multi.log | grep -v ": ok" | tail -30)
timeout 200 bash scaling/gpu_multi_bench.sh build-gpu/vesica "1 2 4" 16000000 16000000 200 "peer" > $OUT/bench.txt 2> $OUT/bench.err; cat $OUT/bench.txt; tail -3 $OUT/bench.err
timeout 120 bash scaling/gpu_multi_bench.sh build-gpu/vesica "1 2 4" 16000000 16000000 200 "peer" --set neighbor.skin=0.6 > $OUT/bench_skin.txt 2> $OUT/bench2.err; cat $OUT/bench_skin.txt; tail -3 $OUT/bench2.err
