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
2048 55.6357951 0 0 1
262144 55.6702612 0 0 128
524288 55.6542642 0 0 256
786432 55.622215 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.5663633 0.119006546 0.0341363953 1
262144 20.834658 0.161067845 0.0342086864 128
524288 20.9146996 0.1593337 0.0341057479 256
786432 20.8792722 0.154333303 0.034018081 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.595909 0 0 1
262144 55.6168288 0 0 128
524288 55.5957567 0 0 256
786432 55.6008403 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0606705 0.100387762 0.00240900488 1
262144 18.9753723 0.10662239 0.00238489221 128
524288 18.9200078 0.108788007 0.00236756124 256
786432 18.9151271 0.107430917 0.00242558232 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 56.1785322 0 0 1
262144 55.7756581 0 0 128
524288 55.7553574 0 0 256
786432 55.7244768 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3519573 0.162621487 0.0338198344 1
262144 17.4383455 0.213821281 0.0336563558 128
524288 17.4374863 0.213654612 0.0335484613 256
786432 17.4334432 0.208623886 0.0336394721 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.595909 0 0 1
262144 55.6168288 0 0 128
524288 55.5957567 0 0 256
786432 55.6008403 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0606705 0.100387762 0.00240900488 1
262144 18.9753723 0.10662239 0.00238489221 128
524288 18.9200078 0.108788007 0.00236756124 256
786432 18.9151271 0.107430917 0.00242558232 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 56.1785322 0 0 1
262144 55.7756581 0 0 128
524288 55.7553574 0 0 256
786432 55.7244768 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1573504 0.0631019568 0.034837087 1
262144 17.0126249 0.0582737983 0.0353045522 128
524288 16.981661 0.0569459539 0.0355031755 256
786432 16.9668499 0.0559269703 0.0354965704 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6357951 0 0 1
262144 55.6702612 0 0 128
524288 55.6542642 0 0 256
786432 55.622215 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.38476 0.0661640407 0.0345822322 1
262144 20.3635494 0.0650065859 0.0348527225 128
524288 20.3026497 0.0635897677 0.0351958922 256
786432 20.2989136 0.063272982 0.0350092311 384
EOD
set title "Quantization SQNR over training: variant=mlp_only\nmean over tensors and seeds, per GEMM operand"
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
