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
2048 55.6141771 0 0 1
262144 55.5644894 0 0 128
524288 55.5684897 0 0 256
786432 55.5806325 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4115941 0.0663601202 0.0344308975 1
262144 20.3337997 0.0642165427 0.0347999796 128
524288 20.2948852 0.0649615589 0.0350225084 256
786432 20.2908938 0.0641727947 0.0348715909 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6701565 0 0 128
524288 55.605971 0 0 256
786432 55.6144524 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0696688 0.100609943 0.00246541125 1
262144 18.8474924 0.114246402 0.00240803605 128
524288 18.8198271 0.115075274 0.00244280565 256
786432 18.8182305 0.113798488 0.00240243849 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1370087 0 0 1
262144 57.4775524 0 0 128
524288 57.3496361 0 0 256
786432 57.3015518 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1887261 0.065247546 0.0344767949 1
262144 17.137778 0.0622582512 0.035141405 128
524288 17.1209487 0.0620077729 0.0354061832 256
786432 17.1320942 0.062150279 0.0352276645 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6701565 0 0 128
524288 55.605971 0 0 256
786432 55.6144524 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0624119 0.10133203 0.00240383787 1
262144 18.9464923 0.108531595 0.00237251296 128
524288 18.9340523 0.110052845 0.00248015872 256
786432 18.934112 0.109330435 0.00239737912 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1370087 0 0 1
262144 57.4775524 0 0 128
524288 57.3496361 0 0 256
786432 57.3015518 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1928818 0.0722577533 0.0354174003 1
262144 16.9942486 0.0573054217 0.0356434362 128
524288 16.9770251 0.0568657376 0.0355352726 256
786432 16.9574938 0.0561349204 0.0356101738 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6141771 0 0 1
262144 55.5644894 0 0 128
524288 55.5684897 0 0 256
786432 55.5806325 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7680755 0.0864307562 0.0357140134 1
262144 20.4008129 0.0669070148 0.0346674391 128
524288 20.3702333 0.0658419572 0.0348131392 256
786432 20.362861 0.0654341834 0.0348454177 384
EOD
set title "Quantization SQNR over training: variant=rht_all\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp4_e2m1/16 e4m3 1d rne rht16]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp4_e2m1/16 e4m3 2d rne rht16]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr rht16]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne rht16]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16]'
unset output
