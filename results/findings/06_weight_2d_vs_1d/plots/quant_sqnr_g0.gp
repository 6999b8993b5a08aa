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
2048 55.5960979 0 0 1
262144 55.5737972 0 0 128
524288 55.5794652 0 0 256
786432 55.5985279 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.497645 0.0900640131 0.0346113035 1
262144 20.5849682 0.109794813 0.0344980331 128
524288 20.6306995 0.111056565 0.0344556072 256
786432 20.6011689 0.108506748 0.0342432458 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6713657 0 0 128
524288 55.56589 0 0 256
786432 55.5968965 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4254611 0.0679960703 0.0345234006 1
262144 20.3838458 0.0663340198 0.034632876 128
524288 20.3718487 0.0666901117 0.0348483831 256
786432 20.3436048 0.066618635 0.0347022 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1762835 0 0 1
262144 57.4423135 0 0 128
524288 57.3468424 0 0 256
786432 57.3094565 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3108479 0.11267545 0.0341567742 1
262144 17.3588913 0.151730013 0.03396889 128
524288 17.3774359 0.152102143 0.0339835183 256
786432 17.3465553 0.148795118 0.0339647424 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6713657 0 0 128
524288 55.56589 0 0 256
786432 55.5968965 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4355826 0.0680535533 0.0346581729 1
262144 20.4231528 0.0688269885 0.0347133954 128
524288 20.4251981 0.0685700376 0.034704676 256
786432 20.4315497 0.0681733632 0.0347752915 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1762835 0 0 1
262144 57.4423135 0 0 128
524288 57.3468424 0 0 256
786432 57.3094565 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1877102 0.0723191416 0.0352168816 1
262144 17.0186616 0.057568212 0.0355136205 128
524288 16.9804856 0.0569080676 0.0354700037 256
786432 16.9676013 0.0563139638 0.0357184637 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5960979 0 0 1
262144 55.5737972 0 0 128
524288 55.5794652 0 0 256
786432 55.5985279 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7708197 0.0864149122 0.0357584728 1
262144 20.3944289 0.0669057285 0.0347650721 128
524288 20.3665285 0.0656519083 0.0347531233 256
786432 20.3645639 0.0655700497 0.0348812435 384
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
