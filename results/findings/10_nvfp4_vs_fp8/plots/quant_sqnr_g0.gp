# fp4lab plot 'quant_sqnr_g0' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g0.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g0.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g0.' . fmt
if (fmt eq 'svg') {
  set terminal svg noenhanced size 960,600 dynamic background rgb 'white' font 'Sans,12'
} else {
  set terminal pngcairo noenhanced size 960,600 font 'Sans,10'
}
set output out
set encoding utf8
set grid lc rgb '#dddddd'
set key below center horizontal Left reverse noautotitle
set offsets 0, 0, graph 0.06, graph 0.06
$q0 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4958332 0.0902439952 0.0339582586 1
262144 20.6295028 0.108283356 0.0338716154 128
524288 20.5846368 0.1079886 0.033875521 256
786432 20.5541796 0.10630592 0.0338940091 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0671601 0.100882825 0.00237606526 1
262144 18.9428755 0.109230324 0.00233462163 128
524288 18.9014453 0.110055859 0.00243214871 256
786432 18.8755353 0.109415259 0.00238478457 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3116632 0.11260952 0.0339653126 1
262144 17.3407231 0.151910918 0.0337693754 128
524288 17.3393021 0.151556116 0.0336843924 256
786432 17.3372205 0.148590926 0.0337349472 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0671601 0.100882825 0.00237606526 1
262144 18.9428755 0.109230324 0.00233462163 128
524288 18.9014453 0.110055859 0.00243214871 256
786432 18.8755353 0.109415259 0.00238478457 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1840183 0.0721619623 0.0352005126 1
262144 17.004942 0.0575988459 0.0355026456 128
524288 16.9866079 0.0568883279 0.0355709872 256
786432 16.9741187 0.0565377846 0.0357670809 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7670634 0.0860229876 0.0356935419 1
262144 20.3996732 0.0671271316 0.0346197199 128
524288 20.3699988 0.0658261891 0.0347057223 256
786432 20.3620919 0.0656941025 0.0347069887 384
EOD
set title "Quantization SQNR over training: variant=nvfp4\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 e4m3 1d rne bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 e4m3 2d rne bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16 bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16 bf16-in]'
unset output
