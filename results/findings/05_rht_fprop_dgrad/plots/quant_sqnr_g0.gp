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
2048 55.6119823 0 0 1
262144 55.6073494 0 0 128
524288 55.574391 0 0 256
786432 55.5696665 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.411648 0.0663590553 0.0344365035 1
262144 20.3474662 0.0634005511 0.0346189277 128
524288 20.2997845 0.0649551158 0.0348997975 256
786432 20.2819651 0.0644108155 0.0348374152 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6531328 0 0 128
524288 55.6115405 0 0 256
786432 55.6068484 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0696688 0.100609943 0.00246541125 1
262144 18.8337674 0.115402625 0.00238607632 128
524288 18.8185438 0.115557743 0.00241288012 256
786432 18.8046811 0.114536722 0.00240448375 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1363856 0 0 1
262144 57.4288184 0 0 128
524288 57.3440819 0 0 256
786432 57.2546323 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1883554 0.065287459 0.0344621769 1
262144 17.1328091 0.0619496237 0.0353567436 128
524288 17.131735 0.0620567687 0.0353006181 256
786432 17.1244444 0.0622982198 0.0352958448 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6531328 0 0 128
524288 55.6115405 0 0 256
786432 55.6068484 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0624119 0.10133203 0.00240383787 1
262144 18.9479918 0.108644516 0.00242084591 128
524288 18.9231962 0.110485258 0.00235195261 256
786432 18.9229066 0.110378474 0.00234549386 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1363856 0 0 1
262144 57.4288184 0 0 128
524288 57.3440819 0 0 256
786432 57.2546323 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1905545 0.0722349258 0.0354082723 1
262144 16.9860895 0.0573306765 0.0355183132 128
524288 16.9712897 0.0566302861 0.0356590078 256
786432 16.9572375 0.0560923028 0.0358023922 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6119823 0 0 1
262144 55.6073494 0 0 128
524288 55.574391 0 0 256
786432 55.5696665 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7678864 0.0864317151 0.0357277431 1
262144 20.3980132 0.0670219152 0.0347190786 128
524288 20.3752636 0.0656010662 0.0347299926 256
786432 20.3581922 0.0653030006 0.0347480471 384
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
