# fp4lab plot 'fidelity_wgrad_g1' (written by fp4lab; data inline).
# Re-render: gnuplot fidelity_wgrad_g1.gp   or   gnuplot -e "fmt='svg'" fidelity_wgrad_g1.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'fidelity_wgrad_g1.' . fmt
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
$l0 << EOD
# tokens gain gain gain step
1024 0.869795695 0.869795695 0.869795695 1
165888 0.986340359 0.986340359 0.986340359 162
331776 0.970167056 0.970167056 0.970167056 324
497664 0.94340758 0.94340758 0.94340758 486
EOD
$l1 << EOD
# tokens gain gain gain step
1024 0.854143038 0.854143038 0.854143038 1
165888 0.960014746 0.960014746 0.960014746 162
331776 0.937001526 0.937001526 0.937001526 324
497664 0.90089649 0.90089649 0.90089649 486
EOD
$l2 << EOD
# tokens gain gain gain step
1024 0.847080916 0.847080916 0.847080916 1
165888 0.950396478 0.950396478 0.950396478 162
331776 0.929937705 0.929937705 0.929937705 324
497664 0.891963795 0.891963795 0.891963795 486
EOD
$l3 << EOD
# tokens gain gain gain step
1024 0.82672514 0.82672514 0.82672514 1
165888 0.896174833 0.896174833 0.896174833 162
331776 0.788823634 0.788823634 0.788823634 324
497664 0.799889624 0.799889624 0.799889624 486
EOD
$l4 << EOD
# tokens gain gain gain step
1024 0.908751547 0.908751547 0.908751547 1
165888 0.823477238 0.823477238 0.823477238 162
331776 0.790715858 0.790715858 0.790715858 324
497664 0.823341608 0.823341608 0.823341608 486
EOD
$l5 << EOD
# tokens gain gain gain step
1024 0.840359032 0.840359032 0.840359032 1
165888 0.875249147 0.875249147 0.875249147 162
331776 0.770417258 0.770417258 0.770417258 324
497664 0.787679717 0.787679717 0.787679717 486
EOD
$l6 << EOD
# tokens gain gain gain step
1024 0.892852515 0.892852515 0.892852515 1
165888 0.904624179 0.904624179 0.904624179 162
331776 0.807466552 0.807466552 0.807466552 324
497664 0.847325757 0.847325757 0.847325757 486
EOD
$l7 << EOD
# tokens gain gain gain step
1024 0.875547841 0.875547841 0.875547841 1
165888 0.977702871 0.977702871 0.977702871 162
331776 0.989170462 0.989170462 0.989170462 324
497664 0.955880672 0.955880672 0.955880672 486
EOD
$l8 << EOD
# tokens gain gain gain step
1024 0.864260599 0.864260599 0.864260599 1
165888 0.922284961 0.922284961 0.922284961 162
331776 0.954866126 0.954866126 0.954866126 324
497664 0.930324018 0.930324018 0.930324018 486
EOD
$l9 << EOD
# tokens gain gain gain step
1024 0.87276642 0.87276642 0.87276642 1
165888 0.926466614 0.926466614 0.926466614 162
331776 0.953336537 0.953336537 0.953336537 324
497664 0.943155527 0.943155527 0.943155527 486
EOD
$l10 << EOD
# tokens gain gain gain step
1024 0.819905236 0.819905236 0.819905236 1
165888 1.02305675 1.02305675 1.02305675 162
331776 1.00420748 1.00420748 1.00420748 324
497664 0.871091262 0.871091262 0.871091262 486
EOD
$l11 << EOD
# tokens gain gain gain step
1024 0.899039805 0.899039805 0.899039805 1
165888 0.998920605 0.998920605 0.998920605 162
331776 1.01353644 1.01353644 1.01353644 324
497664 0.968489304 0.968489304 0.968489304 486
EOD
$l12 << EOD
# tokens gain gain gain step
1024 0.830047935 0.830047935 0.830047935 1
165888 0.933584481 0.933584481 0.933584481 162
331776 0.934576333 0.934576333 0.934576333 324
497664 0.876626864 0.876626864 0.876626864 486
EOD
$l13 << EOD
# tokens gain gain gain step
1024 0.896047503 0.896047503 0.896047503 1
165888 1.01024474 1.01024474 1.01024474 162
331776 0.94720158 0.94720158 0.94720158 324
497664 0.840488806 0.840488806 0.840488806 486
EOD
$l14 << EOD
# tokens gain gain gain step
1024 0.877075419 0.877075419 0.877075419 1
165888 0.992495671 0.992495671 0.992495671 162
331776 0.982208252 0.982208252 0.982208252 324
497664 0.94048962 0.94048962 0.94048962 486
EOD
$l15 << EOD
# tokens gain gain gain step
1024 0.871885031 0.871885031 0.871885031 1
165888 0.944469824 0.944469824 0.944469824 162
331776 0.943010822 0.943010822 0.943010822 324
497664 0.943079963 0.943079963 0.943079963 486
EOD
$l16 << EOD
# tokens gain gain gain step
1024 0.870332077 0.870332077 0.870332077 1
165888 0.969568864 0.969568864 0.969568864 162
331776 0.95261772 0.95261772 0.95261772 324
497664 0.945763275 0.945763275 0.945763275 486
EOD
$l17 << EOD
# tokens gain gain gain step
1024 0.858002365 0.858002365 0.858002365 1
165888 0.95337595 0.95337595 0.95337595 162
331776 0.932977319 0.932977319 0.932977319 324
497664 0.874473751 0.874473751 0.874473751 486
EOD
$l18 << EOD
# tokens gain gain gain step
1024 0.874054343 0.874054343 0.874054343 1
165888 1.03911597 1.03911597 1.03911597 162
331776 0.996001124 0.996001124 0.996001124 324
497664 0.967151403 0.967151403 0.967151403 486
EOD
$l19 << EOD
# tokens gain gain gain step
1024 0.83450824 0.83450824 0.83450824 1
165888 0.916903451 0.916903451 0.916903451 162
331776 0.947379038 0.947379038 0.947379038 324
497664 0.913388968 0.913388968 0.913388968 486
EOD
$l20 << EOD
# tokens gain gain gain step
1024 0.892041579 0.892041579 0.892041579 1
165888 0.969780669 0.969780669 0.969780669 162
331776 0.967094019 0.967094019 0.967094019 324
497664 0.873629555 0.873629555 0.873629555 486
EOD
$l21 << EOD
# tokens gain gain gain step
1024 0.950098172 0.950098172 0.950098172 1
165888 0.987168029 0.987168029 0.987168029 162
331776 0.982137516 0.982137516 0.982137516 324
497664 0.978261888 0.978261888 0.978261888 486
EOD
set title "Weight-gradient gain against fp32 over training: budget=0.8, recipe=mxfp4\n<dW, dW_fp32> / <dW_fp32, dW_fp32> per linear layer, mean over seeds"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set key outside right font ',7'
set xlabel 'tokens (log scale)'
set ylabel 'wgrad gain'
plot $l0 using 1:2 with linespoints lw 1.2 pt 4 ps 0.5 lc rgb '#0072B2' title 'layers.0.mlp.down_proj', \
     $l1 using 1:2 with linespoints lw 1.2 pt 5 ps 0.5 lc rgb '#D55E00' title 'layers.0.mlp.gate_proj', \
     $l2 using 1:2 with linespoints lw 1.2 pt 6 ps 0.5 lc rgb '#009E73' title 'layers.0.mlp.up_proj', \
     $l3 using 1:2 with linespoints lw 1.2 pt 7 ps 0.5 lc rgb '#CC79A7' title 'layers.0.self_attn.k_proj', \
     $l4 using 1:2 with linespoints lw 1.2 pt 8 ps 0.5 lc rgb '#E69F00' title 'layers.0.self_attn.o_proj', \
     $l5 using 1:2 with linespoints lw 1.2 pt 9 ps 0.5 lc rgb '#56B4E9' title 'layers.0.self_attn.q_proj', \
     $l6 using 1:2 with linespoints lw 1.2 pt 4 ps 0.5 lc rgb '#F0E442' title 'layers.0.self_attn.v_proj', \
     $l7 using 1:2 with linespoints lw 1.2 pt 5 ps 0.5 lc rgb '#882255' title 'layers.1.mlp.down_proj', \
     $l8 using 1:2 with linespoints lw 1.2 pt 6 ps 0.5 lc rgb '#44AA99' title 'layers.1.mlp.gate_proj', \
     $l9 using 1:2 with linespoints lw 1.2 pt 7 ps 0.5 lc rgb '#999933' title 'layers.1.mlp.up_proj', \
     $l10 using 1:2 with linespoints lw 1.2 pt 8 ps 0.5 lc rgb '#0072B2' title 'layers.1.self_attn.k_proj', \
     $l11 using 1:2 with linespoints lw 1.2 pt 9 ps 0.5 lc rgb '#D55E00' title 'layers.1.self_attn.o_proj', \
     $l12 using 1:2 with linespoints lw 1.2 pt 4 ps 0.5 lc rgb '#009E73' title 'layers.1.self_attn.q_proj', \
     $l13 using 1:2 with linespoints lw 1.2 pt 5 ps 0.5 lc rgb '#CC79A7' title 'layers.1.self_attn.v_proj', \
     $l14 using 1:2 with linespoints lw 1.2 pt 6 ps 0.5 lc rgb '#E69F00' title 'layers.2.mlp.down_proj', \
     $l15 using 1:2 with linespoints lw 1.2 pt 7 ps 0.5 lc rgb '#56B4E9' title 'layers.2.mlp.gate_proj', \
     $l16 using 1:2 with linespoints lw 1.2 pt 8 ps 0.5 lc rgb '#F0E442' title 'layers.2.mlp.up_proj', \
     $l17 using 1:2 with linespoints lw 1.2 pt 9 ps 0.5 lc rgb '#882255' title 'layers.2.self_attn.k_proj', \
     $l18 using 1:2 with linespoints lw 1.2 pt 4 ps 0.5 lc rgb '#44AA99' title 'layers.2.self_attn.o_proj', \
     $l19 using 1:2 with linespoints lw 1.2 pt 5 ps 0.5 lc rgb '#999933' title 'layers.2.self_attn.q_proj', \
     $l20 using 1:2 with linespoints lw 1.2 pt 6 ps 0.5 lc rgb '#0072B2' title 'layers.2.self_attn.v_proj', \
     $l21 using 1:2 with linespoints lw 1.2 pt 7 ps 0.5 lc rgb '#D55E00' title 'lm_head', 1 with lines dt 2 lc rgb 'gray' notitle
unset output
