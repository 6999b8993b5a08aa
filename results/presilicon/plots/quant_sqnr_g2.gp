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
1024 20.5756758 0.0904924301 0.0215897634 1
165888 20.8029736 0.111703903 0.0213973333 162
331776 20.8811449 0.116131904 0.0212189206 324
497664 20.8714135 0.116355169 0.0215228852 486
663552 20.8301727 0.114956795 0.0214745508 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.0685807 0.10071043 0.00184833183 1
165888 18.9292981 0.110183797 0.00190855965 162
331776 18.877118 0.112767134 0.00190807524 324
497664 18.8763476 0.111993698 0.00199349217 486
663552 18.8620537 0.111004219 0.0019340717 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 17.5243291 0.112422625 0.0213111091 1
165888 17.6444232 0.153171933 0.0213279269 162
331776 17.7332494 0.157935976 0.0213247935 324
497664 17.6949975 0.15657655 0.0213052053 486
663552 17.7024431 0.153820083 0.021335511 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.0685807 0.10071043 0.00184833183 1
165888 18.9292981 0.110183797 0.00190855965 162
331776 18.877118 0.112767134 0.00190807524 324
497664 18.8763476 0.111993698 0.00199349217 486
663552 18.8620537 0.111004219 0.0019340717 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 17.3231017 0.0723750253 0.0220292863 1
165888 17.0937851 0.0582711203 0.0221014779 162
331776 17.0606622 0.0571588032 0.0221906995 324
497664 17.0624588 0.0565837074 0.0221821013 486
663552 17.0665027 0.0563985127 0.0221940601 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.8553279 0.0860922374 0.0221541116 1
165888 20.4625545 0.0669010557 0.0216957122 162
331776 20.4669982 0.0659905084 0.0215823311 324
497664 20.4456214 0.0650455535 0.0217210377 486
663552 20.4622695 0.0653804142 0.0216179953 648
EOD
set title "Quantization SQNR over training: variant=window32\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 e4m3 1d rne bf16-in window32]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 e4m3 2d rne bf16-in window32]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in window32]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne bf16-in window32]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16 bf16-in window32]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16 bf16-in window32]'
unset output
