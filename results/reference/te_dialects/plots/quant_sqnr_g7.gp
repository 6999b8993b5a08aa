# fp4lab plot 'quant_sqnr_g7' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g7.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g7.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g7.' . fmt
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
2048 21.212732 0.104080351 0.0203791018 1
262144 21.2558884 0.120695175 0.0202965106 128
524288 21.3047914 0.123049175 0.0204883455 256
786432 21.2643197 0.120256273 0.0208364719 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0931812 0.103353295 0.00213547694 1
262144 18.9733583 0.110774395 0.00224441448 128
524288 18.9186039 0.112164102 0.00227455529 256
786432 18.8949703 0.111458807 0.00216174254 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3099708 0.112244844 0.033913567 1
262144 17.368676 0.149515 0.033712932 128
524288 17.3604034 0.151795009 0.0335754414 256
786432 17.3512065 0.14867934 0.0336786504 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0931812 0.103353295 0.00213547694 1
262144 18.9733583 0.110774395 0.00224441448 128
524288 18.9186039 0.112164102 0.00227455529 256
786432 18.8949703 0.111458807 0.00216174254 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1880926 0.0722697121 0.0353261554 1
262144 16.9848744 0.057517309 0.0356214413 128
524288 16.9655245 0.0565529779 0.0358142851 256
786432 16.9687155 0.0561681777 0.0357582051 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7740179 0.0859222819 0.035865723 1
262144 20.3914535 0.0671526992 0.0347323949 128
524288 20.3684747 0.0656318871 0.0348732055 256
786432 20.3661692 0.0654863529 0.0347851346 384
EOD
set title "Quantization SQNR over training: variant=4over6_mse_448\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 e4m3 1d rne 4over6-mse bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 e4m3 2d rne 4over6-mse bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne 4over6-mse bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16 bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16 bf16-in]'
unset output
