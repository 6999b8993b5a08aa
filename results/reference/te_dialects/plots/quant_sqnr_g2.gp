# fp4lab plot 'quant_sqnr_g2' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g2.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g2.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g2.' . fmt
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
2048 20.4966881 0.0910033878 0.0340522787 1
262144 20.6073809 0.10981134 0.03391169 128
524288 20.5788869 0.10929811 0.0333749276 256
786432 20.5542756 0.107265907 0.0339341236 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0661545 0.10097217 0.00233677455 1
262144 18.9363625 0.109318163 0.00244571207 128
524288 18.9005739 0.109914951 0.00240329965 256
786432 18.8897755 0.108442357 0.00242848875 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3118883 0.112201852 0.0339822215 1
262144 17.3311602 0.150585841 0.0338068765 128
524288 17.3670445 0.152622374 0.033623327 256
786432 17.3767744 0.149351594 0.03372261 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0661545 0.10097217 0.00233677455 1
262144 18.9363625 0.109318163 0.00244571207 128
524288 18.9005739 0.109914951 0.00240329965 256
786432 18.8897755 0.108442357 0.00242848875 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1907885 0.072293761 0.0354173147 1
262144 16.9892773 0.0571558715 0.0356082112 128
524288 16.9819736 0.0570824336 0.0354952939 256
786432 16.9846633 0.0564098861 0.0355544317 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7751166 0.0860942962 0.0356447025 1
262144 20.3879481 0.0668563539 0.0346685238 128
524288 20.361611 0.065738658 0.0344504909 256
786432 20.3455412 0.0653875441 0.034821879 384
EOD
set title "Quantization SQNR over training: variant=te_nvfp4\nmean over tensors and seeds, per GEMM operand"
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
