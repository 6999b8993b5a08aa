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
2048 55.6145508 0 0 1
262144 55.6351833 0 0 128
524288 55.6110725 0 0 256
786432 55.6042857 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4974534 0.0900332742 0.0348044579 1
262144 20.6509941 0.113322227 0.0346856876 128
524288 20.6685582 0.114308304 0.0344182273 256
786432 20.6340784 0.111260596 0.0349051386 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5996605 0 0 1
262144 55.6193569 0 0 128
524288 55.5990152 0 0 256
786432 55.6052541 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0696435 0.10107987 0.00237165179 1
262144 18.9619592 0.106784397 0.00232708644 128
524288 18.90901 0.109654341 0.00244237507 256
786432 18.8821222 0.109102764 0.00238844454 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 56.5420748 0 0 1
262144 55.8712614 0 0 128
524288 55.8086984 0 0 256
786432 55.8279413 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3066399 0.112731873 0.0341396106 1
262144 17.3018825 0.144614189 0.0340434558 128
524288 17.3223477 0.148537795 0.0339785152 256
786432 17.32126 0.145658743 0.0339972028 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5996605 0 0 1
262144 55.6193569 0 0 128
524288 55.5990152 0 0 256
786432 55.6052541 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0696435 0.10107987 0.00237165179 1
262144 18.9619592 0.106784397 0.00232708644 128
524288 18.90901 0.109654341 0.00244237507 256
786432 18.8821222 0.109102764 0.00238844454 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 56.5420748 0 0 1
262144 55.8712614 0 0 128
524288 55.8086984 0 0 256
786432 55.8279413 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1441133 0.0721500335 0.035298234 1
262144 16.9883389 0.0566633467 0.0358154358 128
524288 16.9597503 0.0562828078 0.0356224075 256
786432 16.9557742 0.0558809173 0.0355982629 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6145508 0 0 1
262144 55.6351833 0 0 128
524288 55.6110725 0 0 256
786432 55.6042857 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7284561 0.0850206174 0.0357357813 1
262144 20.4028399 0.0669902313 0.0347038075 128
524288 20.3834726 0.0653813612 0.0349967896 256
786432 20.3671307 0.0652575566 0.0348394334 384
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
