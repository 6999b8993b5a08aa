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
2048 55.6065528 0 0 1
262144 55.5909392 0 0 128
524288 55.5794226 0 0 256
786432 55.5731049 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.27775 0.0884359353 0.034699677 1
262144 17.322071 0.105473998 0.0347909827 128
524288 17.3069796 0.106838236 0.0344101742 256
786432 17.2978759 0.105087679 0.0344936785 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6953754 0 0 128
524288 55.5332266 0 0 256
786432 55.6907914 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 15.975036 0.100799937 0.00237240531 1
262144 15.8679538 0.10896164 0.00243828452 128
524288 15.8562922 0.110561041 0.00238510751 256
786432 15.8716316 0.109852086 0.00238370811 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.092123 0 0 1
262144 57.4187775 0 0 128
524288 57.3995514 0 0 256
786432 57.3280951 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.306699 0.112629966 0.034139073 1
262144 17.3212214 0.15210564 0.0339975408 128
524288 17.35775 0.154251255 0.0340399314 256
786432 17.3311402 0.152254564 0.0339839876 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6953754 0 0 128
524288 55.5332266 0 0 256
786432 55.6907914 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0666944 0.100871307 0.00237240531 1
262144 18.9469385 0.108972082 0.00243828452 128
524288 18.9390671 0.110900879 0.00238510751 256
786432 18.9467286 0.109649819 0.00238370811 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.092123 0 0 1
262144 57.4187775 0 0 128
524288 57.3995514 0 0 256
786432 57.3280951 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1924237 0.0723602557 0.035326433 1
262144 16.9992049 0.0573349755 0.0354787787 128
524288 16.9734795 0.0564884357 0.0357072618 256
786432 16.9595976 0.0559663972 0.0357377189 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6065528 0 0 1
262144 55.5909392 0 0 128
524288 55.5794226 0 0 256
786432 55.5731049 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7650714 0.0864370889 0.0357737619 1
262144 20.4034333 0.0668336776 0.0345505103 128
524288 20.3799431 0.0656755233 0.0348854164 256
786432 20.3741096 0.0653892345 0.0349942314 384
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
