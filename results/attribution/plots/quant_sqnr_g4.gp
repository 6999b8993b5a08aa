# fp4lab plot 'quant_sqnr_g4' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g4.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g4.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g4.' . fmt
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
1024 55.5873871 0 0 1
165888 55.5927601 0 0 162
331776 55.6249514 0 0 324
497664 55.5924206 0 0 486
663552 55.6015215 0 0 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.502659 0.0902566306 0.0349743252 1
165888 20.6409367 0.112401296 0.0344534224 162
331776 20.7240357 0.114608053 0.0348219642 324
497664 20.7500988 0.116509286 0.0341309139 486
663552 20.7424829 0.115684993 0.0345183781 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6637459 0 0 1
165888 55.599143 0 0 162
331776 55.503335 0 0 324
497664 55.6950827 0 0 486
663552 55.7811823 0 0 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.0634915 0.100732874 0.00235728107 1
165888 18.9222671 0.111720817 0.00238182432 162
331776 18.8529175 0.114556207 0.00243284841 324
497664 18.8335964 0.113115099 0.00237843346 486
663552 18.8317335 0.112110602 0.00244285949 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.2680216 0 0 1
165888 57.3906946 0 0 162
331776 57.4528399 0 0 324
497664 57.2991829 0 0 486
663552 57.2750282 0 0 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.5570636 0.115709472 0.0340354556 1
165888 20.6747154 0.159711656 0.0340743897 162
331776 20.7513376 0.164688943 0.0339471425 324
497664 20.7506115 0.164718598 0.0339461885 486
663552 20.7318015 0.161387171 0.03395403 648
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6637459 0 0 1
165888 55.599143 0 0 162
331776 55.503335 0 0 324
497664 55.6950827 0 0 486
663552 55.7811823 0 0 648
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.0634915 0.100732874 0.00235728107 1
165888 18.9222671 0.111720817 0.00238182432 162
331776 18.8529175 0.114556207 0.00243284841 324
497664 18.8335964 0.113115099 0.00237843346 486
663552 18.8317335 0.112110602 0.00244285949 648
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.2680216 0 0 1
165888 57.3906946 0 0 162
331776 57.4528399 0 0 324
497664 57.2991829 0 0 486
663552 57.2750282 0 0 648
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.4882358 0.102141047 0.0357242616 1
165888 21.0229853 0.219129578 0.033509073 162
331776 21.0436227 0.237034903 0.0334207294 324
497664 21.0264281 0.247636628 0.0334012169 486
663552 21.0332424 0.247480422 0.03339607 648
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.5873871 0 0 1
165888 55.5927601 0 0 162
331776 55.6249514 0 0 324
497664 55.5924206 0 0 486
663552 55.6015215 0 0 648
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.6990487 0.0738823153 0.0455196774 1
165888 20.7223943 0.0926274044 0.0398539134 162
331776 20.7216832 0.099225831 0.039092427 324
497664 20.7238567 0.1029428 0.0378648063 486
663552 20.7211246 0.10293464 0.039119327 648
EOD
set title "Quantization SQNR over training: arm=+fp4+e4m3_scales+block16+weights_2d\nmean over tensors and seeds, per GEMM operand"
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
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/16 e4m3 1d rne]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/16 e4m3 1d rne]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne]'
unset output
