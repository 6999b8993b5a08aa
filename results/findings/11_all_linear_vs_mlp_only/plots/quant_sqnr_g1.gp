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
2048 20.5644455 0.11905005 0.0338079664 1
262144 20.861103 0.160954369 0.0340832604 128
524288 20.8914103 0.159131321 0.0337902586 256
786432 20.8521947 0.153808005 0.0336588992 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0624308 0.100382487 0.00240146968 1
262144 18.9688316 0.106723361 0.00237811054 128
524288 18.9088465 0.109765324 0.00240071615 256
786432 18.9115955 0.107880769 0.00244140625 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3506007 0.162665344 0.0334543299 1
262144 17.4262937 0.211743967 0.0331605277 128
524288 17.4472451 0.214374248 0.0334474306 256
786432 17.4217998 0.209572026 0.0333224167 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0624308 0.100382487 0.00240146968 1
262144 18.9688316 0.106723361 0.00237811054 128
524288 18.9088465 0.109765324 0.00240071615 256
786432 18.9115955 0.107880769 0.00244140625 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1564358 0.0631245976 0.0346530868 1
262144 17.0191901 0.0584158957 0.0352607185 128
524288 16.9805244 0.0569199336 0.0354308847 256
786432 16.973752 0.0559459498 0.0356271297 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.3852337 0.0661241034 0.0344709702 1
262144 20.3565318 0.0649826971 0.035121871 128
524288 20.3105773 0.0637861534 0.0350452472 256
786432 20.2958081 0.0631104928 0.0352284701 384
EOD
set title "Quantization SQNR over training: variant=mlp_only\nmean over tensors and seeds, per GEMM operand"
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
