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
2048 55.596145 0 0 1
262144 55.564635 0 0 128
524288 55.5945059 0 0 256
786432 55.5939445 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4976436 0.0900640737 0.0346113994 1
262144 20.5894036 0.109079815 0.0344172684 128
524288 20.6057004 0.111017076 0.0342000729 256
786432 20.5954139 0.109483043 0.0342115627 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6675841 0 0 128
524288 55.5802428 0 0 256
786432 55.6104635 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4254611 0.0679960703 0.0345234006 1
262144 20.3804354 0.0663000035 0.0348692665 128
524288 20.3575999 0.0667083041 0.0346433179 256
786432 20.3407365 0.0668684811 0.0347413832 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1762797 0 0 1
262144 57.4528993 0 0 128
524288 57.3348331 0 0 256
786432 57.2917601 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3139598 0.112671186 0.0341595746 1
262144 17.3337565 0.150974269 0.0340471671 128
524288 17.3596117 0.15214311 0.0340079606 256
786432 17.3487361 0.149121693 0.0340493521 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6675841 0 0 128
524288 55.5802428 0 0 256
786432 55.6104635 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4355826 0.0680535533 0.0346581729 1
262144 20.42136 0.0685176145 0.0347251286 128
524288 20.4304248 0.0681196478 0.0346538673 256
786432 20.4256914 0.0681697033 0.0345412697 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1762797 0 0 1
262144 57.4528993 0 0 128
524288 57.3348331 0 0 256
786432 57.2917601 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1876337 0.0723255398 0.0352199847 1
262144 16.9640538 0.0574371097 0.0355721428 128
524288 16.9794528 0.0566525385 0.0355486744 256
786432 16.9722694 0.0561464603 0.0356091039 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.596145 0 0 1
262144 55.564635 0 0 128
524288 55.5945059 0 0 256
786432 55.5939445 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7708275 0.0864150483 0.0357582609 1
262144 20.3899979 0.0670197703 0.0347034819 128
524288 20.3662763 0.0657741199 0.0347478149 256
786432 20.3600219 0.0654820236 0.0348074677 384
EOD
set title "Quantization SQNR over training: variant=weights_1d\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp4_e2m1/16 e4m3 1d rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp4_e2m1/16 e4m3 1d rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/16 e4m3 1d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16]'
unset output
