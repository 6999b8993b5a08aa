# fp4lab plot 'quant_sqnr_g5' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g5.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g5.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g5.' . fmt
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
2048 20.5620164 0.119191536 0.0339080907 1
262144 20.8311006 0.160915422 0.0336830942 128
524288 20.8714363 0.159808217 0.0337076068 256
786432 20.8196121 0.153062444 0.0335966983 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.060193 0.100414134 0.0023539979 1
262144 18.9678278 0.106419693 0.0024097584 128
524288 18.9285429 0.108601888 0.00241729359 256
786432 18.9344799 0.107292269 0.0024760682 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.349032 0.162140811 0.0335152708 1
262144 17.4280791 0.211663588 0.0334874376 128
524288 17.4506893 0.213480043 0.0333717723 256
786432 17.4089252 0.208352218 0.0332769227 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.060193 0.100414134 0.0023539979 1
262144 18.9678278 0.106419693 0.0024097584 128
524288 18.9285429 0.108601888 0.00241729359 256
786432 18.9344799 0.107292269 0.0024760682 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3015289 0.152731742 0.0341188408 1
262144 17.452409 0.200481344 0.0334119444 128
524288 17.4906145 0.222476182 0.0332101894 256
786432 17.5204856 0.237398407 0.0329899494 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7410361 0.106363109 0.0404918812 1
262144 20.5462415 0.123372467 0.035829214 128
524288 20.5812788 0.131882114 0.0349657271 256
786432 20.5848004 0.1321397 0.0345889435 384
EOD
set title "Quantization SQNR over training: variant=nvfp4_mlp_no_rht\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 e4m3 1d rne bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 e4m3 2d rne bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne bf16-in]'
unset output
