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
2048 55.6079032 0 0 1
262144 55.5624924 0 0 128
524288 55.5692291 0 0 256
786432 55.5775986 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.2776297 0.0884427219 0.0346978304 1
262144 17.2946702 0.105661705 0.034692966 128
524288 17.3049265 0.106807547 0.0344936482 256
786432 17.2944129 0.105185675 0.0344529077 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6864325 0 0 128
524288 55.5956421 0 0 256
786432 55.6954238 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 15.975036 0.100799937 0.00237240531 1
262144 15.879666 0.109008036 0.00239231977 128
524288 15.8538254 0.111094641 0.00242967286 256
786432 15.8670114 0.110010648 0.00245453904 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0923227 0 0 1
262144 57.4625842 0 0 128
524288 57.3547573 0 0 256
786432 57.3535633 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3126096 0.112637161 0.0341305608 1
262144 17.3800548 0.15092441 0.0340163467 128
524288 17.3590747 0.154286793 0.0340047867 256
786432 17.3729155 0.152129108 0.0340110234 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6864325 0 0 128
524288 55.5956421 0 0 256
786432 55.6954238 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0666944 0.100871307 0.00237240531 1
262144 18.9600581 0.109062827 0.00239231977 128
524288 18.9333657 0.111207239 0.00242967286 256
786432 18.9525727 0.109844981 0.00245453904 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0923227 0 0 1
262144 57.4625842 0 0 128
524288 57.3547573 0 0 256
786432 57.3535633 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1899457 0.0723442149 0.0353502042 1
262144 17.0173244 0.0574252267 0.0356209062 128
524288 16.9642718 0.0565909935 0.0358355487 256
786432 16.9678649 0.0558873837 0.0356758358 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6079032 0 0 1
262144 55.5624924 0 0 128
524288 55.5692291 0 0 256
786432 55.5775986 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7650287 0.0864344198 0.0357764965 1
262144 20.3914258 0.0669126107 0.0346850996 128
524288 20.371206 0.0658194578 0.0347909829 256
786432 20.3680427 0.065570004 0.0348987077 384
EOD
set title "Quantization SQNR over training: variant=sr_forward\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp4_e2m1/16 e4m3 1d sr]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp4_e2m1/16 e4m3 2d sr]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16]'
unset output
