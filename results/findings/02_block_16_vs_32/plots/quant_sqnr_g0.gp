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
2048 55.6084398 0 0 1
262144 55.5805403 0 0 128
524288 55.5791868 0 0 256
786432 55.5908661 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.8379954 0.103899441 0.0179966013 1
262144 19.8213341 0.133117535 0.0174842814 128
524288 19.8158113 0.133714797 0.0175798709 256
786432 19.7932281 0.130662822 0.0176368946 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6507517 0 0 128
524288 55.6253262 0 0 256
786432 55.5602163 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.8452498 0.0773662048 0.0178554206 1
262144 19.828063 0.0758534585 0.0177826519 128
524288 19.7966517 0.0763907188 0.017834322 256
786432 19.789914 0.0762751076 0.017736149 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1405665 0 0 1
262144 57.4518661 0 0 128
524288 57.3705686 0 0 256
786432 57.3655383 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.7662627 0.137466804 0.0174400743 1
262144 19.688097 0.218304275 0.0172744882 128
524288 19.6742198 0.220165278 0.0172359225 256
786432 19.6628197 0.216032336 0.0172667327 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6507517 0 0 128
524288 55.6253262 0 0 256
786432 55.5602163 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.8574509 0.0774026965 0.0178699527 1
262144 19.8530607 0.0789757247 0.0176751138 128
524288 19.8539328 0.0792835914 0.0177038553 256
786432 19.8547841 0.0787714131 0.0177865273 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1405665 0 0 1
262144 57.4518661 0 0 128
524288 57.3705686 0 0 256
786432 57.3655383 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.7212471 0.124512158 0.0184686096 1
262144 19.6285559 0.269436246 0.0169660528 128
524288 19.6229102 0.292287125 0.0168999869 256
786432 19.6139947 0.3061805 0.016880096 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6084398 0 0 1
262144 55.5805403 0 0 128
524288 55.5791868 0 0 256
786432 55.5908661 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.0705552 0.0840179155 0.0261289506 1
262144 19.9321774 0.10285875 0.0222882064 128
524288 19.8918305 0.111661114 0.0216835213 256
786432 19.8898777 0.112536778 0.021149151 384
EOD
set title "Quantization SQNR over training: variant=block32\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp4_e2m1/32 e4m3 1d rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp4_e2m1/32 e4m3 1d rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/32 e4m3 1d rne]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/32 e4m3 1d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/32 e4m3 1d rne]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/32 e4m3 1d rne]'
unset output
