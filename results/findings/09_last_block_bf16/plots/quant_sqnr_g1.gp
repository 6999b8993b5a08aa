# fp4lab plot 'quant_sqnr_g1' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g1.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g1.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g1.' . fmt
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
2048 55.6146242 0 0 1
262144 55.6203658 0 0 128
524288 55.6228631 0 0 256
786432 55.6153923 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4974452 0.0900343336 0.0348036479 1
262144 20.6501199 0.114103461 0.0344316466 128
524288 20.6626055 0.115485275 0.0342831157 256
786432 20.6264012 0.112793325 0.0339584126 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5996605 0 0 1
262144 55.615416 0 0 128
524288 55.5997686 0 0 256
786432 55.6056167 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0696435 0.10107987 0.00237165179 1
262144 18.9652925 0.10679247 0.00240136202 128
524288 18.9093646 0.109514993 0.00232418 256
786432 18.8988304 0.108567495 0.00243833834 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 56.5403197 0 0 1
262144 55.8137052 0 0 128
524288 55.8197886 0 0 256
786432 55.8125699 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.305206 0.112768007 0.034151539 1
262144 17.3138887 0.14268172 0.0340932058 128
524288 17.3327427 0.148749298 0.0339572466 256
786432 17.3218718 0.145809476 0.0340201438 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5996605 0 0 1
262144 55.615416 0 0 128
524288 55.5997686 0 0 256
786432 55.6056167 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0696435 0.10107987 0.00237165179 1
262144 18.9652925 0.10679247 0.00240136202 128
524288 18.9093646 0.109514993 0.00232418 256
786432 18.8988304 0.108567495 0.00243833834 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 56.5403197 0 0 1
262144 55.8137052 0 0 128
524288 55.8197886 0 0 256
786432 55.8125699 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1464111 0.0721257984 0.0352426105 1
262144 16.9942754 0.0574654852 0.0354523204 128
524288 16.95987 0.0562178521 0.035732012 256
786432 16.9568162 0.0559868436 0.0357616516 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6146242 0 0 1
262144 55.6203658 0 0 128
524288 55.6228631 0 0 256
786432 55.6153923 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7283575 0.0850209357 0.035736417 1
262144 20.3898128 0.0668678442 0.0346989782 128
524288 20.3746656 0.0655850233 0.0348437173 256
786432 20.3604671 0.0655104318 0.0349126845 384
EOD
set title "Quantization SQNR over training: variant=keep_last_1\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp4_e2m1/16 e4m3 1d rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp4_e2m1/16 e4m3 2d rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16]'
unset output
